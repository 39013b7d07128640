/**
 * `npm run build` (and `prepare`, so `npm ci` and `npm pack` run it): compiles the package to
 * dist/ (JavaScript + .d.ts) and pre-bundles every Lambda handler into dist/assets/<name>/, which
 * the compiled constructs deploy, so an installed pod-doctor synthesizes without a bundler.
 * Skipped when dist/ is a complete build of the same inputs (scripts/build-inputs.ts);
 * POD_DOCTOR_REBUILD=1 builds anyway.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { BUNDLE_FILE, bundleHandler } from '../lib/constructs/bundling.js';
import { lambdaEntry, PREBUILT_ASSETS, PROJECT_ROOT } from '../lib/constructs/paths.js';
import { BUILD_STAMP, buildInputsDigest, buildIsCurrent } from './build-inputs.js';

const dist = join(PROJECT_ROOT, 'dist');
/** The command-line entry point: executable, so the bin runs as a file in a checkout too (npm sets it only on install). */
const CLI = join('bin', 'pod-doctor.js');
const handlers = readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => basename(f, '.ts'));
const outputs = [CLI, ...handlers.map((h) => relative(dist, join(lambdaEntry(h).prebuilt, BUNDLE_FILE)))];
const digest = buildInputsDigest(PROJECT_ROOT);

if (process.env.POD_DOCTOR_REBUILD !== '1' && buildIsCurrent(dist, digest, outputs)) {
  process.stdout.write('pod-doctor: dist/ is up to date (inputs unchanged; POD_DOCTOR_REBUILD=1 builds anyway)\n');
} else {
  rmSync(dist, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    { cwd: PROJECT_ROOT, stdio: 'inherit' },
  );
  for (const h of handlers) bundleHandler(lambdaEntry(h).source, lambdaEntry(h).prebuilt);
  chmodSync(join(dist, CLI), 0o755);
  writeFileSync(join(dist, BUILD_STAMP), `${digest}\n`);
  process.stdout.write(`pod-doctor: built dist/ and ${handlers.length} Lambda bundles in ${PREBUILT_ASSETS}\n`);
}
