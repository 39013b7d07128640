import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { runEsbuild } from './esbuild-run.js';
import { PROJECT_ROOT } from './paths.js';

export { BundlerMissingError } from './esbuild-run.js';

/**
 * How every Lambda handler is bundled, at `npm run build` (pre-bundled assets shipped in the
 * package) and at synth when running from sources: one ESM file for Node.js 22, minified, with
 * a source map. The AWS SDK v3 is bundled too, tree-shaken to the clients and commands the handler
 * uses: importing the runtime's copy loads every client module's files (client-ec2's ~1.3 MB of
 * schemas included) at each cold start, and `npm run bench` measured bundling at about a third of the
 * import time (check-network: 480 ms CPU with the SDK external, 165 ms bundled). It also pins the SDK
 * to the version the tests ran against.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  // The map keeps pod-doctor's own sources: stack traces show the line, and a reviewer (or an IAM
  // coverage check) can read from the deployed asset exactly which SDK calls each function makes.
  // bundleHandler then drops the text of node_modules sources (see withOwnSourcesOnly).
  sourcesContent: true,
  mainFields: ['module', 'main'],
  // node-fetch 2 (the HTTP library of @kubernetes/client-node) imports whatwg-url 5 only as a
  // fallback for runtimes without a global URL (`Url.URL || whatwgUrl.URL`); on Node its tr46
  // tables (260 KB) are compiled at each cold start and never used. Node's own URL module stands in.
  alias: { 'whatwg-url': 'node:url' },
  // Some dependencies (X-Ray SDK) still call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
} as const;

/** File name of the bundle inside its asset directory (handler `index.handler`). */
export const BUNDLE_FILE = 'index.mjs';

/** The part of an esbuild metafile pod-doctor reads: what each output contains and imports. */
export interface BundleMetafile {
  readonly inputs: Record<string, { readonly bytes: number }>;
  readonly outputs: Record<
    string,
    {
      readonly bytes: number;
      readonly inputs: Record<string, { readonly bytesInOutput: number }>;
      readonly imports: readonly { readonly path: string; readonly kind: string; readonly external?: boolean }[];
    }
  >;
}

/**
 * Bundles one handler's TypeScript source into `outDir/index.mjs` (synchronously: CDK local bundling)
 * and returns esbuild's metafile (bundle composition: bytes per input, external imports).
 */
export function bundleHandler(source: string, outDir: string): BundleMetafile {
  const outfile = join(outDir, BUNDLE_FILE);
  const meta = runEsbuild({ ...BUNDLE_OPTIONS, entryPoints: [source], outfile, metafile: true }, source);
  withOwnSourcesOnly(`${outfile}.map`);
  return meta as BundleMetafile;
}

/**
 * Drops the text of dependencies' sources from a bundle's source map (their names and mappings stay:
 * stack traces still name the file and line). With NODE_OPTIONS=--enable-source-maps, Node reads and
 * parses the whole map at module load, so every cold start paid for ~2 MB of third-party source text
 * nobody reads there (it is the published package version in package-lock.json).
 */
function withOwnSourcesOnly(mapFile: string): void {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as {
    sourceRoot?: string;
    sources: string[];
    sourcesContent?: (string | null)[];
  };
  // Sources are relative to the map, which may lie anywhere (cdk.out, the bench's cache under
  // node_modules); pod-doctor's own are those inside its package root, outside its node_modules.
  const dependency = (s: string) => {
    const path = relative(PROJECT_ROOT, resolve(dirname(mapFile), map.sourceRoot ?? '', s));
    return path.startsWith('..') || path.split(sep).includes('node_modules');
  };
  map.sourcesContent = map.sources.map((s, i) => (dependency(s) ? null : (map.sourcesContent?.[i] ?? null)));
  writeFileSync(mapFile, JSON.stringify(map));
}

const SDK_CLIENT = /(?:^|node_modules\/)(@aws-sdk\/(?:client|lib)-[a-z0-9-]+)(?:\/|$)/;
/** pod-doctor's own EC2 Query client (lambdas/aws/ec2), reported as `ec2-query`. */
const EC2_QUERY_CLIENT = /(?:^|\/)lambdas\/aws\/ec2\/client\.[jt]s$/;

/**
 * The AWS SDK client packages (`@aws-sdk/client-…`, `@aws-sdk/lib-…`) a bundle loads, whether
 * bundled into it or imported at run time, and `ec2-query` when it carries pod-doctor's lean EC2
 * client instead of `@aws-sdk/client-ec2`.
 */
export function sdkClientPackages(meta: BundleMetafile): string[] {
  const found = new Set<string>();
  for (const output of Object.values(meta.outputs)) {
    const paths = [
      // Inputs tree-shaken to nothing are in the metafile but not in the bundle.
      ...Object.entries(output.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([p]) => p),
      ...output.imports.filter((i) => i.external).map((i) => i.path),
    ];
    for (const p of paths) {
      const m = SDK_CLIENT.exec(p);
      if (m) found.add(m[1]);
      if (EC2_QUERY_CLIENT.test(p)) found.add('ec2-query');
    }
  }
  return [...found].sort();
}
