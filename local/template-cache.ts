import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { PROJECT_ROOT, RUNNING_COMPILED } from '../lib/constructs/paths.js';
import { type ResolvedTemplate, synthesizedTemplate } from './template.js';

/**
 * A synthesized, resolved template kept on disk between runs, keyed by a hash of everything that
 * shapes it: the configuration, the infrastructure code (lib/), the handlers and the local resolver
 * (lambdas/, local/, compiled or not, and the pre-built handler bundles the compiled app names),
 * the node scripts and manifests the stack embeds (ssm/, k8s/) and the locked dependency versions
 * (the CDK's among them). Any change to one of them is another key: the template is synthesized again.
 */
export interface TemplateCacheOptions {
  /** Where the entries live. @default node_modules/.cache/pod-doctor of the package (npm's convention) */
  readonly dir?: string;
  /** Files and folders whose content is the key (relative to the package root, or absolute). @default see {@link shapingPaths} */
  readonly shapedBy?: readonly string[];
  /** What makes a template on a miss. @default synthesizedTemplate */
  readonly synthesize?: (config: unknown) => ResolvedTemplate;
}

/** What a template was served from: the disk cache, or a synthesis (now cached). */
export interface CachedTemplate {
  readonly template: ResolvedTemplate;
  readonly cached: boolean;
  readonly key: string;
  readonly ms: number;
}

const PREFIX = 'template-';

/** The paths whose content shapes a synthesized template, for the code running now. */
export function shapingPaths(): string[] {
  const code = RUNNING_COMPILED ? 'dist/' : '';
  return [
    `${code}lib`,
    `${code}lambdas`,
    `${code}local`,
    ...(RUNNING_COMPILED ? ['dist/assets'] : []),
    'ssm',
    'k8s',
    'package-lock.json',
  ];
}

/** Files under `path` (itself, when a file), sorted: what the key reads. */
function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .map((f) => join(path, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/** The cache key of `config` synthesized by the code in `shapedBy` (sha256 of names and contents). */
export function templateKey(config: unknown, shapedBy: readonly string[] = shapingPaths()): string {
  const h = createHash('sha256').update(JSON.stringify(config ?? null));
  for (const rel of shapedBy)
    for (const f of filesOf(isAbsolute(rel) ? rel : join(PROJECT_ROOT, rel)))
      h.update(`\0${relative(PROJECT_ROOT, f)}\0`).update(readFileSync(f));
  return h.digest('hex').slice(0, 32);
}

/**
 * The template of `config`: from the disk cache when the key matches, else synthesized and stored
 * (written whole, then renamed: a run stopped half-way leaves no torn entry; older entries removed).
 */
export function cachedTemplate(config: unknown, o: TemplateCacheOptions = {}): CachedTemplate {
  const t0 = performance.now();
  const dir = o.dir ?? join(PROJECT_ROOT, 'node_modules', '.cache', 'pod-doctor');
  const key = templateKey(config, o.shapedBy);
  // One entry per configuration: a new key replaces that configuration's older entries only.
  const prefix = `${PREFIX}${createHash('sha256')
    .update(JSON.stringify(config ?? null))
    .digest('hex')
    .slice(0, 8)}-`;
  const file = join(dir, `${prefix}${key}.json`);
  const ms = () => Math.round(performance.now() - t0);
  if (existsSync(file)) {
    try {
      return { template: JSON.parse(readFileSync(file, 'utf8')) as ResolvedTemplate, cached: true, key, ms: ms() };
    } catch {
      // unreadable: synthesize again below and overwrite it
    }
  }
  const template = (o.synthesize ?? synthesizedTemplate)(config);
  try {
    mkdirSync(dir, { recursive: true });
    for (const old of readdirSync(dir)) if (old.startsWith(prefix)) rmSync(join(dir, old), { force: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(template));
    renameSync(tmp, file);
  } catch {
    // a read-only install: no cache, the run goes on
  }
  return { template, cached: false, key, ms: ms() };
}
