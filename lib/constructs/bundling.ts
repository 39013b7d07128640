import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * How every Lambda handler is bundled, at `npm run build` (pre-bundled assets shipped in the
 * package) and at synth when running from sources: one ESM file for Node.js 22, minified, with
 * a source map; the AWS SDK v3 stays external (the Lambda runtime provides it).
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  // The map keeps the sources: stack traces show the line, and a reviewer (or an IAM coverage check)
  // can read from the deployed asset exactly which SDK calls each function makes.
  sourcesContent: true,
  mainFields: ['module', 'main'],
  external: ['@aws-sdk/*'],
  // Some dependencies (X-Ray SDK) still call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
} as const;

/** File name of the bundle inside its asset directory (handler `index.handler`). */
export const BUNDLE_FILE = 'index.mjs';

interface Esbuild {
  buildSync(options: Record<string, unknown>): { errors: unknown[] };
}

/** Thrown when a handler must be bundled from sources and esbuild is not installed. */
export class BundlerMissingError extends Error {
  override readonly name = 'BundlerMissingError';
}

/** Bundles one handler's TypeScript source into `outDir/index.mjs` (synchronously: CDK local bundling). */
export function bundleHandler(source: string, outDir: string): void {
  let esbuild: Esbuild;
  try {
    esbuild = createRequire(import.meta.url)('esbuild') as Esbuild;
  } catch {
    throw new BundlerMissingError(
      `pod-doctor: bundling ${source} needs esbuild (npm install --save-dev esbuild), or use the compiled package`,
    );
  }
  esbuild.buildSync({ ...BUNDLE_OPTIONS, entryPoints: [source], outfile: join(outDir, BUNDLE_FILE) });
}
