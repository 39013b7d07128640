/** Finding ids (a contract: workflow policy, summaries and tests read them). */
export const FINDING_IDS = [
  'iam.node-role.ecr-read',
  'iam.cni-policy',
  'ecr.repository-policy',
  'ecr.image-exists',
  'vpc.endpoint.ecr-api',
  'vpc.endpoint.ecr-dkr',
  'vpc.endpoint.sg-443',
  'vpc.endpoint.s3-gateway',
  'subnet.free-ips',
  'subnet.free-prefix-blocks',
  'node.eni-capacity',
  'eks.addon-versions',
  'eks.node-ami',
  'change.recent',
] as const;

export type AccountFindingId = (typeof FINDING_IDS)[number];

/**
 * pass / warn / fail: what the check found. error: the check itself could not run (throttled after
 * retries, access denied, missing input); policy reads it as unknown and never acts on it.
 */
export type FindingStatus = 'pass' | 'warn' | 'fail' | 'error';

export interface Finding {
  readonly id: string;
  readonly status: FindingStatus;
  readonly summary: string;
  /** What was looked at, for a human to verify. */
  readonly evidence: Record<string, unknown>;
  /** What to do about it; null when nothing is needed. */
  readonly remediation: string | null;
}

export function finding(
  id: string,
  status: FindingStatus,
  summary: string,
  evidence: Record<string, unknown> = {},
  remediation: string | null = null,
): Finding {
  return { id, status, summary, evidence, remediation };
}

/** The finding for a check that could not run. Never a pass. */
export function errorFinding(id: string, e: unknown): Finding {
  const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = err?.name ?? 'Error';
  const denied = /AccessDenied|UnauthorizedOperation|AuthorizationError|NotAuthorized/i.test(
    `${name} ${err?.message ?? ''}`,
  );
  const throttled = /Throttl|RequestLimitExceeded|TooManyRequests|Rate exceeded/i.test(`${name} ${err?.message ?? ''}`);
  return finding(
    id,
    'error',
    `check could not run: ${name}${err?.message ? `: ${err.message}` : ''}`,
    {
      error: name,
      httpStatusCode: err?.$metadata?.httpStatusCode ?? null,
      kind: denied ? 'access-denied' : throttled ? 'throttled' : 'failed',
    },
    denied
      ? "grant pod-doctor's check role the read-only permission named in the error"
      : throttled
        ? 'the API was throttled after retries; the workflow retries the check later'
        : null,
  );
}

/** Runs one check; any exception becomes an `error` finding for that id. */
export async function runCheck(id: string, check: () => Promise<Finding | Finding[]>): Promise<Finding[]> {
  try {
    const r = await check();
    return Array.isArray(r) ? r : [r];
  } catch (e) {
    return [errorFinding(id, e)];
  }
}
