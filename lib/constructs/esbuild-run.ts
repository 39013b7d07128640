import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * esbuild with pod-doctor's one plugin, synchronously. Plugins need esbuild's async API and CDK
 * bundles synchronously, so a child `node` runs the build (WORKER) and prints the metafile.
 *
 * The plugin, `sdk-schema-keys`: the AWS SDK's generated schema modules (`schemas/schemas_0.js` of
 * each client) write every shape's traits with computed keys of module constants
 * (`const _h = "http"; … { [_h]: ["DELETE", "/?cors", 204] }`). esbuild cannot tell that such a key has
 * no side effect, so it kept every shape of every operation of a client in each bundle although the
 * function calls one or two of them: 484 shapes (67 KB) of client-s3 for one PutObject, ~10 ms of
 * the ingest function's cold start (issue 15, `npm run bench:init`). The plugin writes each such key
 * as the string constant it names (`["http"]`: the same property, computed from the same string)
 * before esbuild reads the file; unused shapes then go like any unused code.
 */
const WORKER = `
import { readFileSync } from 'node:fs';
const { esbuild, options } = JSON.parse(readFileSync(0, 'utf8'));
const { build } = await import(esbuild);
const SCHEMAS = /[\\\\/]@aws-sdk[\\\\/].+[\\\\/]dist-es[\\\\/](?:.+[\\\\/])?schemas[\\\\/]schemas_\\d+\\.js$/;
const CONSTANT = /^const (_\\w+) = ("[^"\\\\\\n]*");$/gm;
const COMPUTED_KEY = /([{,]\\s*)\\[(_\\w+)\\](\\s*:)/g;
const sdkSchemaKeys = {
  name: 'sdk-schema-keys',
  setup(b) {
    b.onLoad({ filter: SCHEMAS }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const constants = new Map([...source.matchAll(CONSTANT)].map((m) => [m[1], m[2]]));
      const contents = source.replace(COMPUTED_KEY, (key, before, name, colon) =>
        constants.has(name) ? before + '[' + constants.get(name) + ']' + colon : key,
      );
      return { contents, loader: 'js' };
    });
  },
};
const result = await build({ ...options, plugins: [sdkSchemaKeys] });
process.stdout.write(JSON.stringify(result.metafile ?? {}));
`;

/** Thrown when esbuild (a development dependency) is not installed. */
export class BundlerMissingError extends Error {
  override readonly name = 'BundlerMissingError';
}

/** Thrown when the build fails (esbuild's messages are in the message). */
export class BundleFailedError extends Error {
  override readonly name = 'BundleFailedError';
}

/** esbuild's `build` with `options` (plain data) and the plugin above; the metafile when asked for. */
export function runEsbuild(options: Record<string, unknown>, what: string): unknown {
  let esbuild: string;
  try {
    esbuild = pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href;
  } catch {
    throw new BundlerMissingError(
      `pod-doctor: bundling ${what} needs esbuild (npm install --save-dev esbuild), or use the compiled package`,
    );
  }
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', WORKER], {
    input: JSON.stringify({ esbuild, options }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new BundleFailedError(`pod-doctor: bundling ${what} failed: ${r.stderr.slice(-4000)}`);
  return JSON.parse(r.stdout);
}
