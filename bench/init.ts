/**
 * Init-time figures for `npm run bench` (issue 15, "Lean Lambdas"): every handler of lambdas/handlers/
 * is bundled with the deployed esbuild options, then imported by fresh `node` processes (as the Lambda
 * runtime does at a cold start: source maps enabled, the AWS SDK resolved from node_modules, a Lambda-like
 * environment). One table: bundle size, what the bundle carries (zod, Kubernetes client), the SDK
 * clients it loads, and the module import time (median of N runs, min–max).
 * Target: every handler's module import <= 150 ms.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_FILE, type BundleMetafile, bundleHandler, sdkClientPackages } from '../lib/constructs/bundling.js';
import { lambdaEntry, PROJECT_ROOT } from '../lib/constructs/paths.js';
import { LAMBDA_ENV } from '../local/lambda-env.js';

/** Module import budget per handler (ms). */
export const INIT_TARGET_MS = 150;

/** Inside the project, so the bundles resolve the external AWS SDK from node_modules as on Lambda. */
const OUT = join(PROJECT_ROOT, 'node_modules', '.cache', 'pod-doctor-bench');

/** Every handler of lambdas/handlers/: each is a deployed function's bundle. */
export function shippedHandlers(): string[] {
  return readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => basename(f, '.ts'))
    .sort();
}

/** Imports the module named by BENCH_MODULE and prints the import's wall and CPU (user + system) time in ms. */
const CHILD = `const t0 = performance.now();
const c0 = process.cpuUsage();
await import(process.env.BENCH_MODULE);
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));`;

interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

export interface InitFigure {
  readonly handler: string;
  readonly bundleBytes: number;
  readonly zodBytes: number;
  readonly kubernetesBytes: number;
  readonly sdk: readonly string[];
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Median CPU time of the import: what the machine's load inflates least. */
  readonly cpuMs: number;
}

/** Bytes of the bundle that come from inputs matching `pattern`. */
function bytesFrom(meta: BundleMetafile, pattern: RegExp): number {
  let n = 0;
  for (const o of Object.values(meta.outputs)) {
    if (!o.inputs) continue;
    for (const [path, i] of Object.entries(o.inputs)) if (pattern.test(path)) n += i.bytesInOutput;
  }
  return n;
}

/** One fresh `node` process importing the bundle; its import time in ms. */
function importOnce(file: string, env: Readonly<Record<string, string>>): Sample {
  const r = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', CHILD], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, BENCH_MODULE: pathToFileURL(file).href },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`importing ${file} failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as Sample;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Bundled {
  readonly handler: string;
  readonly file: string;
  readonly meta: BundleMetafile;
}

/** Bundles one handler with the deployed options. */
function bundle(name: string, out: string): Bundled {
  const dir = join(out, name);
  rmSync(dir, { recursive: true, force: true });
  return { handler: name, file: join(dir, BUNDLE_FILE), meta: bundleHandler(lambdaEntry(name).source, dir) };
}

/**
 * Bundles every handler, then imports each once per round, `runs` rounds: the machine's load
 * changes over a run, and interleaving spreads it evenly over the handlers.
 */
export function measureHandlers(
  names: readonly string[],
  runs: number,
  out = OUT,
  env: Readonly<Record<string, string>> = LAMBDA_ENV,
): InitFigure[] {
  const bundles = names.map((n) => bundle(n, out));
  const samples = bundles.map(() => [] as Sample[]);
  for (let r = 0; r < runs; r++) {
    for (const [i, b] of bundles.entries()) samples[i].push(importOnce(b.file, env));
  }
  return bundles.map((b, i) => figure(b, samples[i]));
}

function figure(b: Bundled, samples: readonly Sample[]): InitFigure {
  const wall = samples.map((x) => x.ms);
  return {
    handler: b.handler,
    bundleBytes: Object.entries(b.meta.outputs).find(([p]) => p.endsWith(BUNDLE_FILE))?.[1].bytes ?? 0,
    zodBytes: bytesFrom(b.meta, /node_modules\/zod\//),
    kubernetesBytes: bytesFrom(b.meta, /node_modules\/@kubernetes\//),
    sdk: sdkClientPackages(b.meta),
    medianMs: median(wall),
    minMs: Math.min(...wall),
    maxMs: Math.max(...wall),
    cpuMs: median(samples.map((x) => x.cpuMs)),
  };
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;

/** Prints the init-time table; true when every handler meets the target. */
export function benchInit(runs = Number(process.env.BENCH_INIT_RUNS ?? 5)): boolean {
  const handlers = shippedHandlers();
  console.log(
    `Lambda init: module import of each handler bundle, fresh node ${process.version} process, --enable-source-maps, median of ${runs} (min–max); load average ${loadavg()[0].toFixed(1)} at start`,
  );
  console.log(
    `${'handler'.padEnd(24)} ${'bundle'.padStart(8)} ${'zod'.padStart(7)} ${'k8s'.padStart(8)} ${'import ms'.padStart(10)} ${'min–max'.padStart(11)} ${'cpu ms'.padStart(7)}  SDK clients`,
  );
  const figures = measureHandlers(handlers, runs);
  for (const f of figures) {
    const flag = f.medianMs <= INIT_TARGET_MS ? ' ' : '!';
    console.log(
      `${f.handler.padEnd(24)} ${kb(f.bundleBytes).padStart(8)} ${kb(f.zodBytes).padStart(7)} ${kb(f.kubernetesBytes).padStart(8)} ${f.medianMs.toFixed(0).padStart(9)}${flag} ${`${f.minMs.toFixed(0)}–${f.maxMs.toFixed(0)}`.padStart(11)} ${f.cpuMs.toFixed(0).padStart(7)}  ${f.sdk.map((s) => s.replace('@aws-sdk/', '')).join(' ') || '-'}`,
    );
  }
  const over = figures.filter((f) => f.medianMs > INIT_TARGET_MS);
  const worst = figures.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  console.log(
    `${figures.length - over.length}/${figures.length} handlers import in <= ${INIT_TARGET_MS} ms (worst: ${worst.handler} ${worst.medianMs.toFixed(0)} ms)${over.length ? `; over: ${over.map((f) => f.handler).join(', ')}` : ''}`,
  );
  return over.length === 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!benchInit()) process.exitCode = 1;
}
