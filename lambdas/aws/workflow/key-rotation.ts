import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';

/**
 * Scheduled rotation of the approval signing key (Secrets Manager's four-step rotation contract:
 * https://docs.aws.amazon.com/secretsmanager/latest/userguide/rotate-secrets_lambda-functions.html).
 * The key lives only in the secret, so `setSecret` has nothing to change elsewhere. After
 * `finishSecret` the old key is AWSPREVIOUS: the endpoint still verifies links and pages signed with
 * it, so an approval pending across one rotation can be answered (the rotation interval is longer
 * than the longest approval timeout, 7 days).
 */

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** Length of a key (the secret's generateSecretString: 64 characters, no punctuation). */
export const KEY_LENGTH = 64;

/** A rotation request Secrets Manager should not have sent, or a pending key that is no key. */
export class KeyRotationError extends Error {
  override readonly name = 'KeyRotationError';
}

/** Runs one step for version `token` of `secretId`; every step may be retried (Secrets Manager does). */
export async function rotateApprovalKey(
  sm: SecretsManagerClient,
  secretId: string,
  token: string,
  step: RotationStep,
): Promise<'done' | 'already current'> {
  const described = await sm.send(new DescribeSecretCommand({ SecretId: secretId }));
  if (!described.RotationEnabled) throw new KeyRotationError(`rotation is not enabled on ${secretId}`);
  const stages = described.VersionIdsToStages ?? {};
  const of = stages[token];
  if (!of) throw new KeyRotationError(`version ${token} is not a version of ${secretId}`);
  if (of.includes('AWSCURRENT')) return 'already current';
  if (!of.includes('AWSPENDING')) throw new KeyRotationError(`version ${token} of ${secretId} is not AWSPENDING`);
  if (step === 'createSecret') await createPending(sm, secretId, token);
  if (step === 'testSecret') await testPending(sm, secretId, token);
  if (step === 'finishSecret') {
    const current = Object.entries(stages).find(([, s]) => s.includes('AWSCURRENT'))?.[0];
    await sm.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId,
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: token,
        RemoveFromVersionId: current,
      }),
    );
  }
  return 'done';
}

async function pendingValue(sm: SecretsManagerClient, secretId: string, token: string): Promise<string | undefined> {
  try {
    const r = await sm.send(
      new GetSecretValueCommand({ SecretId: secretId, VersionId: token, VersionStage: 'AWSPENDING' }),
    );
    return r.SecretString;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return undefined;
    throw e;
  }
}

/** A new random key as the pending version (kept if a retry finds it already there). */
async function createPending(sm: SecretsManagerClient, secretId: string, token: string): Promise<void> {
  if (await pendingValue(sm, secretId, token)) return;
  const r = await sm.send(new GetRandomPasswordCommand({ PasswordLength: KEY_LENGTH, ExcludePunctuation: true }));
  await sm.send(
    new PutSecretValueCommand({
      SecretId: secretId,
      ClientRequestToken: token,
      SecretString: r.RandomPassword,
      VersionStages: ['AWSPENDING'],
    }),
  );
}

async function testPending(sm: SecretsManagerClient, secretId: string, token: string): Promise<void> {
  const value = await pendingValue(sm, secretId, token);
  if (!value || value.length < KEY_LENGTH)
    throw new KeyRotationError(`the pending key of ${secretId} is missing or shorter than ${KEY_LENGTH} characters`);
}
