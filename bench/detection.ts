/**
 * Detection figures for `npm run bench`:
 *  - the share of a realistic healthy mix the derived subscription filter lets through (lines and
 *    bytes, raw and inside Container Insights envelopes) and the Lambda cost that implies per GB;
 *  - the CLI end to end against a plain Node script that reads lines and writes one small JSON per
 *    line (same input file, same run, best of three wall times each).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyEach, classifyStream, type StreamRecord } from '../lambdas/core/detect/context.js';
import { buildFilterPattern } from '../lambdas/core/detect/filter-pattern.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { compileFilterPattern } from '../test/support/cloudwatch-filter.js';
import { labelledCorpus } from '../test/support/corpus.js';

/** arm64 Lambda list prices (us-east-1): per GB-second and per request. https://aws.amazon.com/lambda/pricing/ */
export const LAMBDA_GB_SECOND_USD = 0.0000133334;
export const LAMBDA_REQUEST_USD = 0.2 / 1_000_000;
const INGEST_MEMORY_GB = 0.5;
/** CloudWatch Logs delivers subscription data in batches; one invocation per 256 KB is the conservative case. */
const BATCH_BYTES = 256 * 1024;

function envelope(line: string, i: number): string {
  return JSON.stringify({
    hostname: `ip-10-0-${i % 200}-${i % 250}.eu-west-1.compute.internal`,
    systemd_unit: i % 2 === 0 ? 'kubelet.service' : 'containerd.service',
    ec2_instance_id: 'i-0123456789abcdef0',
    message: line,
  });
}

/**
 * Filter pass rate on healthy lines and the Lambda cost per GB of node logs it implies; returns that
 * cost (US$ per GB) for node lines inside Container Insights envelopes (what a cluster ships).
 */
export function benchFilter(healthy: readonly string[], ingestMbPerSecond: number): number {
  const passes = compileFilterPattern(buildFilterPattern());
  const sets: [string, readonly string[]][] = [
    ['raw journal/ipamd lines', healthy],
    ['Container Insights envelopes', healthy.map(envelope)],
  ];
  let perGb = 0;
  for (const [name, lines] of sets) {
    const through = lines.filter((l) => passes(l));
    const bytes = lines.reduce((n: number, l) => n + Buffer.byteLength(l), 0);
    const passedBytes = through.reduce((n: number, l) => n + Buffer.byteLength(l), 0);
    const share = passedBytes / bytes;
    const gbSeconds = ((share * 1024) / ingestMbPerSecond) * INGEST_MEMORY_GB;
    const requests = (share * 1024 ** 3) / BATCH_BYTES;
    const usd = gbSeconds * LAMBDA_GB_SECOND_USD + requests * LAMBDA_REQUEST_USD;
    perGb = usd;
    console.log(
      `filter, healthy ${name}: ${((through.length / lines.length) * 100).toFixed(1)}% of lines, ${(share * 100).toFixed(1)}% of bytes pass → per GB of node logs ${(share * 1024).toFixed(0)} MB reach the ingest function: ${gbSeconds.toFixed(2)} GB-s + ${requests.toFixed(0)} requests ≈ $${usd.toFixed(5)}`,
    );
  }
  return perGb;
}

/**
 * The context path's cost (context.ts) against the single-line fast path, on what the ingest function receives: the
 * mix's lines the subscription filter lets through, in stream batches of 500 (best of five each, same run).
 */
export function benchContext(mix: readonly string[]): void {
  const passes = compileFilterPattern(buildFilterPattern());
  const delivered = mix.filter((l) => passes(l));
  const batches: StreamRecord[][] = [];
  for (let i = 0; i < delivered.length; i += 500)
    batches.push(delivered.slice(i, i + 500).map((record, k) => ({ record, at: 1_700_000_000_000 + (i + k) * 100 })));
  const best = (read: (b: StreamRecord[]) => unknown) => {
    let ms = Number.POSITIVE_INFINITY;
    for (let r = 0; r < 5; r++) {
      const t0 = process.hrtime.bigint();
      for (const b of batches) read(b);
      ms = Math.min(ms, Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return ms;
  };
  const alone = best(classifyEach);
  const withContext = best((b) => classifyStream(b));
  const changed = batches.flatMap((b) => classifyStream(b)).filter((r) => r.context !== undefined).length;
  console.log(
    `context path on the ${delivered.length} delivered lines of the mix (${((delivered.length / mix.length) * 100).toFixed(1)}%), batches of 500: single-line ${alone.toFixed(1)} ms, with context ${withContext.toFixed(1)} ms → ${(withContext / alone).toFixed(2)}× the fast path's cost; ${changed} lines read differently with context`,
  );
}

/** The realistic healthy mix: everyday node lines plus the field corpus's healthy lines. */
export function healthyMix(everyday: readonly string[]): string[] {
  const fieldHealthy = labelledCorpus()
    .filter((l) => l.class === 'unknown')
    .map((l) => l.line);
  const out: string[] = [];
  for (let i = 0; i < 20_000; i++)
    out.push(i % 10 === 0 ? fieldHealthy[i % fieldHealthy.length] : everyday[i % everyday.length]);
  return out;
}

const BASELINE = `import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!process.stdout.write(JSON.stringify({ class: 'unknown', length: line.length }) + '\\n')) {
    await new Promise((r) => process.stdout.once('drain', r));
  }
}
`;

function bestWall(args: readonly string[], input: string, rounds = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    const p = spawnSync('bash', ['-c', `node ${args.map((a) => `'${a}'`).join(' ')} < '${input}' > /dev/null`], {
      cwd: PROJECT_ROOT,
    });
    if (p.status !== 0) throw new Error(`${args.join(' ')} failed: ${p.stderr}`);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

/** A compiled JavaScript build of the classify command (what a build step gives the published bin). */
function compiledClassify(): string {
  const dir = join(PROJECT_ROOT, 'node_modules', '.cache', 'pod-doctor-bench');
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'entry.ts');
  writeFileSync(
    entry,
    "import { runClassifyCommand } from '../../../cli/classify-command.js';\nprocess.exitCode = await runClassifyCommand(process.argv.slice(2));\n",
  );
  const out = join(dir, 'classify.mjs');
  const b = spawnSync(
    'npx',
    [
      'esbuild',
      entry,
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--target=node20',
      '--packages=external',
      `--outfile=${out}`,
      '--log-level=warning',
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  if (b.status !== 0) throw new Error(`esbuild failed: ${b.stderr}`);
  return out;
}

/** The sources the published bin is compiled from (tsconfig.build.json) that the CLI can load. */
const BIN_SOURCES = ['bin', 'cli', 'lambdas', 'lib'];

/** Newest modification time (ms) of the TypeScript sources under `dirs`. */
function newestSource(dirs: readonly string[]): number {
  let newest = 0;
  for (const dir of dirs) {
    for (const f of readdirSync(join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts')) newest = Math.max(newest, statSync(join(PROJECT_ROOT, dir, f)).mtimeMs);
    }
  }
  return newest;
}

/**
 * The published bin's path, built first when it is missing or older than its sources: a stale
 * dist/ (a checkout updated without `npm ci` or `npm run build`) would measure yesterday's code.
 */
function currentPublishedBin(): string {
  const published = (
    JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  ).bin['pod-doctor'];
  const bin = join(PROJECT_ROOT, published);
  if (!existsSync(bin) || statSync(bin).mtimeMs < newestSource(BIN_SOURCES)) {
    console.log(`  (${published} missing or older than its sources: npm run build first)`);
    const b = spawnSync('npm', ['run', '-s', 'build'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`npm run build failed: ${b.stderr}`);
  }
  return bin;
}

/** The CLI ratio (baseline wall time / CLI wall time); true when the published bin meets >= 0.5. */
export function benchCli(lines: readonly string[]): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'pod-doctor-bench-'));
  const input = join(dir, 'mix.txt');
  writeFileSync(input, `${lines.join('\n')}\n`);
  const baselineScript = join(dir, 'baseline.mjs');
  writeFileSync(baselineScript, BASELINE);
  // The published bin as package.json names it (compiled JavaScript, current with its sources).
  const publishedBin = currentPublishedBin();
  const base = bestWall([baselineScript], input);
  const bin = bestWall([publishedBin, 'classify'], input);
  const compiled = bestWall([compiledClassify()], input);
  const mb = Buffer.byteLength(lines.join('\n')) / 1e6;
  console.log(`CLI on ${lines.length} lines (${mb.toFixed(1)} MB), best of 3 wall times:`);
  console.log(`  baseline (read lines, write one small JSON per line): ${base.toFixed(0)} ms`);
  console.log(
    `  pod-doctor classify, published bin (package.json):    ${bin.toFixed(0)} ms → ratio ${(base / bin).toFixed(2)}×`,
  );
  console.log(
    `  pod-doctor classify, compiled JS (esbuild bundle):    ${compiled.toFixed(0)} ms → ratio ${(base / compiled).toFixed(2)}×`,
  );
  console.log(`  target: >= 0.5× end to end ${base / bin >= 0.5 ? 'met' : 'MISSED'} by the published bin`);
  return base / bin >= 0.5;
}
