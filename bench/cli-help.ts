import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { COMMANDS } from '../cli/commands.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

/** Best-of-`rounds` wall time (ms) of `node <args>`. */
function bestWall(args: readonly string[], rounds = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const p = spawnSync(process.execPath, [...args], { cwd: PROJECT_ROOT, stdio: 'ignore' });
    if (p.status !== 0) throw new Error(`node ${args.join(' ')} exited ${p.status}`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

/**
 * `pod-doctor <command> --help` of the compiled CLI against a bare `node -e 0` in the same run: help
 * loads the entry, the parser and the command table only (test/cli/cli-args.test.ts asserts which
 * modules). Target (issue 38): every help under 1 s; its cost over bare Node is printed beside it
 * (at load 30 on 2 cores: 150-300 ms, most of it the ES module loader's start, noise included).
 * Run after benchCli, which builds dist/ when it is stale.
 */
export function benchCliHelp(): boolean {
  const bin = join(PROJECT_ROOT, 'dist', 'bin', 'pod-doctor.js');
  const bare = bestWall(['-e', '0']);
  console.log(`CLI --help, best of 3 wall times (bare node -e 0: ${bare.toFixed(0)} ms):`);
  let ok = true;
  for (const name of ['', ...COMMANDS.map((c) => c.name)]) {
    const ms = bestWall([bin, ...(name ? [name] : []), '--help']);
    const over = ms - bare;
    const meets = ms < 1000;
    ok &&= meets;
    console.log(
      `  pod-doctor ${`${name} --help`.trim().padEnd(20)} ${ms.toFixed(0)} ms (+${over.toFixed(0)} ms) ${meets ? '' : 'MISSES'}`,
    );
  }
  console.log(`CLI --help ${ok ? 'meets' : 'MISSES'} the target (every help under 1 s)`);
  return ok;
}
