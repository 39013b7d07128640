import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * What `npm run build` reads: every file under the compiled folders, the TypeScript and package
 * manifests (the lock pins the bundled libraries) and the build script itself. `dist/` records their
 * digest; a build whose inputs are unchanged and whose outputs are all there does nothing, so
 * `npx pod-doctor` in a checkout (npm runs `prepare` each time it installs the directory into its
 * cache) no longer compiles and bundles again on every call.
 */
export const BUILD_INPUT_DIRS = ['bin', 'lib', 'lambdas', 'ssm', 'cli', 'demo', 'local', 'scripts'] as const;
export const BUILD_INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'] as const;

/** The file recording the digest of the inputs a complete build was made from. */
export const BUILD_STAMP = '.build-inputs';

function filesUnder(root: string, dir: string): string[] {
  const at = join(root, dir);
  if (!existsSync(at)) return [];
  return readdirSync(at, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((p) => !p.split(/[\\/]/).includes('node_modules'));
}

/** sha256 over the path and content of every build input of the project at `root`, in a fixed order. */
export function buildInputsDigest(root: string): string {
  const files = [...BUILD_INPUT_DIRS.flatMap((d) => filesUnder(root, d)), ...BUILD_INPUT_FILES]
    .filter((p) => existsSync(join(root, p)))
    .sort();
  const hash = createHash('sha256');
  for (const p of files) {
    hash.update(`${p}\0`);
    hash.update(readFileSync(join(root, p)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * True when `dist` holds a complete build of inputs with this digest: the stamp matches and every
 * `expected` output (relative to `dist`) exists. A partial or foreign dist/ is rebuilt.
 */
export function buildIsCurrent(dist: string, digest: string, expected: readonly string[]): boolean {
  const stamp = join(dist, BUILD_STAMP);
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== digest) return false;
  return expected.every((p) => existsSync(join(dist, p)));
}
