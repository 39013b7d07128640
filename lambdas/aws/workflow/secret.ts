import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

/** The approval signing keys: the current one signs; links signed with the previous one stay valid. */
export interface ApprovalKeys {
  /** AWSCURRENT: signs links and page tokens. */
  readonly current: string;
  /** AWSPREVIOUS (absent before the first rotation): verifies what was signed before the last rotation. */
  readonly previous?: string;
}

/** How long an execution environment keeps the keys before it reads them again (a rotation reaches it within this). */
export const KEYS_TTL_MS = 60_000;

async function stage(
  client: SecretsManagerClient,
  secretId: string,
  VersionStage: string,
): Promise<string | undefined> {
  try {
    const r = await client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage }));
    return r.SecretString;
  } catch (e) {
    if (e instanceof ResourceNotFoundException && VersionStage === 'AWSPREVIOUS') return undefined;
    throw e;
  }
}

/** The approval secret is empty: the deployment (or a rotation) left it without a key. */
export class EmptyApprovalKeyError extends Error {
  override readonly name = 'EmptyApprovalKeyError';
}

/**
 * The approval signing keys of the secret `secretId`, read at most once per {@link KEYS_TTL_MS} per
 * execution environment (`refresh` reads again at once: a signature made with a key rotated in
 * since the last read). A failed read is not kept.
 */
export function approvalKeys(client: SecretsManagerClient, secretId: string, now: () => number = Date.now) {
  let cached: { at: number; keys: Promise<ApprovalKeys> } | undefined;
  const read = async (): Promise<ApprovalKeys> => {
    const [current, previous] = await Promise.all([
      stage(client, secretId, 'AWSCURRENT'),
      stage(client, secretId, 'AWSPREVIOUS'),
    ]);
    if (!current) throw new EmptyApprovalKeyError(`approval secret ${secretId} has no current key`);
    return previous ? { current, previous } : { current };
  };
  const load = (force: boolean): Promise<ApprovalKeys> => {
    if (!force && cached && now() - cached.at <= KEYS_TTL_MS) return cached.keys;
    const entry = { at: now(), keys: read() };
    cached = entry;
    entry.keys.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return entry.keys;
  };
  return { get: () => load(false), refresh: () => load(true) };
}
