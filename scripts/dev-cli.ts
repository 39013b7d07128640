/**
 * The CLI in a checkout (`npm run demo`, `npm run cli -- <command> …`): the compiled dist/bin when
 * dist/ is a complete build of the current sources (scripts/build.ts stamps it), else the TypeScript
 * sources in this process (tsx runs this script). `npm ci` does not build (the package builds on
 * `prepack`), so a fresh clone starts from sources at once instead of compiling and bundling first;
 * once `npm run build` (or `npm pack`) has run, the compiled CLI starts in about half the CPU time
 * (`demo --list`: 2.6 s against 5.0 s of CPU, measured at load 30).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { buildInputsDigest, buildIsCurrent } from './build-inputs.js';

const compiled = join(PROJECT_ROOT, 'dist', 'bin', 'pod-doctor.js');
const args = process.argv.slice(2);

if (buildIsCurrent(join(PROJECT_ROOT, 'dist'), buildInputsDigest(PROJECT_ROOT), [join('bin', 'pod-doctor.js')])) {
  const r = spawnSync(process.execPath, [compiled, ...args], { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
} else {
  process.argv = [process.argv[0], join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'), ...args];
  await import('../bin/pod-doctor.js');
}
