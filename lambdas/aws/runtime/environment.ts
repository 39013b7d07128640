import {
  environmentSchema,
  type HandlerEnvironment,
  type HandlerName,
} from '../../core/contract/handler-environment.js';

/** A function started without the environment its handler needs (a deployment that bypassed lib/). */
export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
}

/**
 * The handler's environment, parsed once at start-up against its schema
 * (lambdas/core/contract/handler-environment.ts). @throws EnvironmentError naming each bad variable
 */
export function readEnvironment<H extends HandlerName>(
  handler: H,
  env: Readonly<Record<string, string | undefined>> = process.env,
): HandlerEnvironment<H> {
  const result = environmentSchema(handler).safeParse(env);
  if (result.success) return result.data as HandlerEnvironment<H>;
  const problems = result.error.issues.map((i) => `${i.path.join('.') || '(environment)'}: ${i.message}`);
  throw new EnvironmentError(
    `the ${handler} function's environment is not what it was deployed with: ${problems.join('; ')}`,
  );
}
