/**
 * `npm run build` (and `prepare`, so `npm ci` and `npm pack` run it): compiles the package to
 * dist/ (JavaScript + .d.ts) and pre-bundles every Lambda handler into dist/assets/<name>/, which
 * the compiled constructs deploy, so an installed pod-doctor synthesizes without a bundler.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bundleHandler } from '../lib/constructs/bundling.js';
import { lambdaEntry, PREBUILT_ASSETS, PROJECT_ROOT } from '../lib/constructs/paths.js';

const dist = join(PROJECT_ROOT, 'dist');
rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
  {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
  },
);
const handlers = readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers')).filter((f) => f.endsWith('.ts'));
for (const file of handlers) {
  const entry = lambdaEntry(basename(file, '.ts'));
  bundleHandler(entry.source, entry.prebuilt);
}
process.stdout.write(`pod-doctor: built dist/ and ${handlers.length} Lambda bundles in ${PREBUILT_ASSETS}\n`);
