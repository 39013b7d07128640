import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_FILE, BUNDLE_OPTIONS, type BundleMetafile, bundleHandler } from '../../lib/constructs/bundling.js';
import { runEsbuild } from '../../lib/constructs/esbuild-run.js';
import { lambdaEntry } from '../../lib/constructs/paths.js';

/**
 * This test process's own directory for bundles: two checkouts testing at once (worktrees, CI
 * runners sharing a machine) must never read each other's bundles. Removed when the process exits.
 */
const BUNDLES = mkdtempSync(join(tmpdir(), 'pod-doctor-bundles-'));
process.on('exit', () => rmSync(BUNDLES, { recursive: true, force: true }));

/** The esbuild metafile of a handler bundled as it is deployed (written under this process's temporary directory). */
export function handlerMetafile(handler: string): BundleMetafile {
  return bundleHandler(lambdaEntry(handler).source, join(BUNDLES, handler));
}

/** A handler's bundle as the deployed options build it, but not minified (names kept): what it carries, readable. */
export function handlerCode(handler: string): string {
  const outfile = join(BUNDLES, `${handler}-unminified`, 'index.mjs');
  runEsbuild({ ...BUNDLE_OPTIONS, minify: false, entryPoints: [lambdaEntry(handler).source], outfile }, handler);
  return readFileSync(outfile, 'utf8');
}

type Resource = { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> };

/** Each function of a template: its handler (metadata) and the actions its role's policies allow. */
export function deployedFunctions(templateJson: Record<string, unknown>): { handler: string; actions: Set<string> }[] {
  const resources = templateJson.Resources as Record<string, Resource>;
  const actionsOf = (roleId: string) =>
    new Set(
      Object.values(resources)
        .filter(
          (r) =>
            r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === roleId),
        )
        .flatMap((r) => (r.Properties.PolicyDocument as { Statement: { Effect: string; Action: unknown }[] }).Statement)
        .filter((st) => st.Effect === 'Allow')
        .flatMap((st) => [st.Action].flat() as string[]),
    );
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function' && typeof r.Metadata?.PodDoctorHandler === 'string')
    .map((fn) => ({
      handler: fn.Metadata?.PodDoctorHandler as string,
      actions: actionsOf((fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]),
    }));
}

/**
 * Runs node with `args` in a fresh process in `dir`, with only the environment given (plus PATH);
 * resolves with what it wrote when it exits 0, rejects with its stderr otherwise.
 */
export function runNode(
  args: readonly string[],
  dir: string,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.stderr.on('data', (d) => {
      err += d;
    });
    p.on('close', (code) =>
      code === 0 ? resolve({ stdout: out, stderr: err }) : reject(new Error(`exit ${code}: ${err}`)),
    );
  });
}

/** What a bundled invocation answered, and everything it wrote (Powertools logs and EMF metrics). */
export interface BundledRun<T> {
  readonly answer: T;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Invokes the bundle in `dir` in a fresh node process, as the Lambda runtime does, with only the
 * environment given (plus PATH). Powertools prints its logs and metrics on stdout too: the
 * handler's answer is the last line.
 */
export async function runBundled<T>(
  dir: string,
  event: unknown,
  context: Record<string, string>,
  env: Record<string, string>,
): Promise<BundledRun<T>> {
  const child = `const { handler } = await import(${JSON.stringify(pathToFileURL(join(dir, BUNDLE_FILE)).href)});
process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)}, ${JSON.stringify(context)})));`;
  const { stdout, stderr } = await runNode(['--input-type=module', '-e', child], dir, env);
  return { answer: JSON.parse(stdout.trim().split('\n').pop() ?? '') as T, stdout, stderr };
}

/** {@link runBundled}'s answer only. */
export async function invokeBundled<T>(
  dir: string,
  event: unknown,
  context: Record<string, string>,
  env: Record<string, string>,
): Promise<T> {
  return (await runBundled<T>(dir, event, context, env)).answer;
}
