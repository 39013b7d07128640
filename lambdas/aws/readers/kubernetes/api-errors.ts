import { ApiException } from './client.js';

/** Reading the API server's answers to failed calls (Status bodies). */

/** HTTP status of a failed call: ApiException (requests) or the Watch error's `statusCode`. */
export function statusOf(e: unknown): number | undefined {
  if (e instanceof ApiException) return e.code;
  const code = (e as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

function statusBody(e: unknown): string {
  const body = e instanceof ApiException ? e.body : undefined;
  return typeof body === 'string' ? body : JSON.stringify(body ?? '');
}

/** The `message` of the API server's Status body (JSON; quotes inside it are escaped). */
export function statusMessage(e: unknown): string | undefined {
  try {
    const message = (JSON.parse(statusBody(e)) as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

export function forbiddenMessage(e: unknown): string {
  return statusMessage(e) ?? "pod-doctor's Kubernetes group is not allowed this (see its ClusterRole)";
}

/**
 * The budget's own words when a 429 is the Eviction API refusing for a PodDisruptionBudget: the
 * API server's Status names the cause `DisruptionBudget` (pkg/registry/core/pod/storage/eviction.go).
 * https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/
 */
export function disruptionBudgetMessage(e: unknown): string | undefined {
  let status: { details?: { causes?: { reason?: string; message?: string }[] }; message?: string };
  try {
    status = JSON.parse(statusBody(e));
  } catch {
    return undefined;
  }
  const cause = status?.details?.causes?.find((c) => c.reason === 'DisruptionBudget');
  return cause ? `${status.message ?? 'eviction refused'} ${cause.message ?? ''}`.trim() : undefined;
}
