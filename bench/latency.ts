/**
 * First log line → verified repair for the pause image (issue 13 target: ≤ 60 s p50; the fixed
 * 120 s verification window modelled ~151 s; issue 37: ≤ 30 s p50 with the commands' completion
 * events instead of the poll loop, which modelled 40 s). The paths are those the synthesized state machine
 * takes when the local runtime runs it (with the cluster's API: Watch pods start; without it: the
 * fixed window); the model walks that definition with the component latencies of latency-model.ts.
 */
import { healthyAccount, NODE_DNS } from '../local/account-snapshot.js';
import { KubeApiServer, recordedCluster } from '../local/kube-api-server.js';
import { localKubernetes } from '../local/kubernetes.js';
import { runWorkflow } from '../local/local-workflow.js';
import { simulatedPauseNode } from '../local/node-adapters.js';
import { incident } from '../test/workflow/support.js';
import { COMPONENTS, type Components, medianSampler, randomSampler, seeded } from './latency-model.js';
import { type PathTime, pathTime } from './latency-walk.js';

/** The state whose end is the verdict "repaired and verified". */
export const VERDICT_STATE = 'Check repair';
export const TARGET_P50_SECONDS = 30;
/** The poll loop's figure (issue 37): 15 s of it in Wait states. */
export const POLLED_P50_SECONDS = 40;
export const OLD_P50_SECONDS = 151;

function running(pod: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(pod) as { status: Record<string, unknown> };
  copy.status.phase = 'Running';
  copy.status.containerStatuses = [
    { name: 'app', ready: true, state: { running: { startedAt: '2026-11-29T10:01:00Z' } } },
  ];
  return copy;
}

/**
 * The states an auto-repaired pause-image incident enters in the given definition: with the
 * cluster's API (the stuck pods start during the watch) or without it (the fixed window).
 */
export async function pausePath(definition: Record<string, unknown>, withKubernetes: boolean): Promise<string[]> {
  const base = { account: healthyAccount(), node: simulatedPauseNode(), definition };
  if (!withKubernetes) return (await runWorkflow(incident(), base)).states;
  const server = new KubeApiServer();
  const endpoint = await server.start();
  try {
    server.cluster = recordedCluster();
    for (const p of server.cluster.pods as { spec: { nodeName: string } }[]) p.spec.nodeName = NODE_DNS;
    server.watchSteps = server.cluster.pods
      .slice(0, 5)
      .map((p, i) => ({ afterMs: 30 + 10 * i, type: 'MODIFIED' as const, object: running(p) }));
    const r = await runWorkflow(incident(), { ...base, kubernetes: localKubernetes(server, endpoint, 20) });
    if (r.status !== 'SUCCEEDED') throw new Error(`the pause-image run failed: ${r.failures.join('; ')}`);
    return r.states;
  } finally {
    await server.stop();
  }
}

export interface LatencyModel {
  readonly p50: number;
  readonly p90: number;
  /** p50 of first line → the end of the execution (e-mail sent). */
  readonly endP50: number;
  /** The path with every component at its median. */
  readonly median: PathTime;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

/** p50 / p90 of first line → verdict over `samples` draws of every component (seeded). */
export function modelLatency(
  definition: Record<string, unknown>,
  visited: readonly string[],
  o: { samples?: number; seed?: number; components?: Components } = {},
): LatencyModel {
  const components = o.components ?? COMPONENTS;
  const random = seeded(o.seed ?? 13);
  const draws: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < (o.samples ?? 5_000); i += 1) {
    const sample = randomSampler(components, random);
    const p = pathTime(definition, { visited, sample, verdictState: VERDICT_STATE });
    draws.push(p.verifiedAt);
    ends.push(p.endAt);
  }
  draws.sort((a, b) => a - b);
  ends.sort((a, b) => a - b);
  const median = pathTime(definition, { visited, sample: medianSampler(components), verdictState: VERDICT_STATE });
  return { p50: percentile(draws, 0.5), p90: percentile(draws, 0.9), endP50: percentile(ends, 0.5), median };
}

/** Prints the model; true when the p50 with Watch pods start meets the target. */
export async function benchLatency(definition: Record<string, unknown>): Promise<boolean> {
  console.log('first log line → verified repair, pause image (model over the synthesized workflow):');
  for (const [id, c] of Object.entries(COMPONENTS)) {
    const unit = c.unit === 'share' ? ' of it' : ' s';
    const figure = c.uniform ? `uniform ${c.uniform[0]}-${c.uniform[1]}${unit}` : `p50 ${c.p50} s, p90 ${c.p90} s`;
    console.log(`  ${id.padEnd(21)} ${figure.padEnd(24)} ${c.kind.padEnd(10)} ${c.note} — ${c.source}`);
  }
  let ok = true;
  for (const [label, withKubernetes] of [
    ['with Watch pods start (Kubernetes API)', true],
    ['fixed verification window (no cluster access)', false],
  ] as const) {
    const visited = await pausePath(definition, withKubernetes);
    const m = modelLatency(definition, visited);
    const states = m.median.entered.length;
    console.log(
      `${label}: p50 ${m.p50.toFixed(0)} s, p90 ${m.p90.toFixed(0)} s (${states} states on the path, ${m.median.waited} s in Wait states; e-mail sent at p50 ${m.endP50.toFixed(0)} s)`,
    );
    if (withKubernetes) {
      const meets = m.p50 <= TARGET_P50_SECONDS;
      console.log(
        `  ${meets ? 'meets' : 'MISSES'} the ≤ ${TARGET_P50_SECONDS} s p50 target (the poll loop modelled ${POLLED_P50_SECONDS} s; the fixed 120 s window ~${OLD_P50_SECONDS} s)`,
      );
      ok &&= meets;
    }
  }
  return ok;
}
