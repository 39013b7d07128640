import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the project checkout (lib/constructs/../..). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Entry file of a Lambda handler in `lambdas/handlers/`. */
export function lambdaEntry(name: string): string {
  return join(PROJECT_ROOT, 'lambdas', 'handlers', `${name}.ts`);
}

/** A node script in `ssm/`. */
export function ssmScript(name: string): string {
  return join(PROJECT_ROOT, 'ssm', name);
}
