import type { Parameters } from 'fast-check';

/**
 * Property-test settings: a fixed seed by default so CI runs are reproducible; FUZZ_SEED and
 * FUZZ_RUNS explore further (e.g. FUZZ_SEED=$RANDOM FUZZ_RUNS=60000 npx vitest run --project unit).
 */
export function fuzz(numRuns: number): Parameters<unknown> {
  return { numRuns: Number(process.env.FUZZ_RUNS ?? numRuns), seed: Number(process.env.FUZZ_SEED ?? 20261129) };
}
