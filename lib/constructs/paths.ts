import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The nearest directory at or above `from` that holds a package.json. */
function packageRootAbove(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`pod-doctor: no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/**
 * Root of the pod-doctor package: the checkout when running from TypeScript sources,
 * `node_modules/pod-doctor` when installed (the compiled code lives in its `dist/`).
 */
export const PROJECT_ROOT = packageRootAbove(here);

/** True when this code runs compiled (dist/…/*.js), false when it runs from TypeScript sources. */
export const RUNNING_COMPILED = fileURLToPath(import.meta.url).endsWith('.js');

/** Where `npm run build` puts the pre-bundled Lambda handlers (one directory each, `index.mjs`). */
export const PREBUILT_ASSETS = join(PROJECT_ROOT, 'dist', 'assets');

/** A Lambda handler of `lambdas/handlers/`, by name. */
export interface HandlerEntry {
  /** Handler name (file name without extension), e.g. `open-incident`. */
  readonly name: string;
  /** TypeScript source of the handler (bundled at synth when running from sources). */
  readonly source: string;
  /** Directory of the pre-bundled handler (used when running compiled, i.e. installed). */
  readonly prebuilt: string;
}

/** Entry of a Lambda handler in `lambdas/handlers/`. */
export function lambdaEntry(name: string): HandlerEntry {
  return {
    name,
    source: join(PROJECT_ROOT, 'lambdas', 'handlers', `${name}.ts`),
    prebuilt: join(PREBUILT_ASSETS, name),
  };
}

/** A node script in `ssm/`. */
export function ssmScript(name: string): string {
  return join(PROJECT_ROOT, 'ssm', name);
}
