import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

let cached: Promise<string> | undefined;
const client = new SecretsManagerClient({ maxAttempts: 6 });

/** The approval signing key, read once per execution environment. */
export function approvalSecret(): Promise<string> {
  cached ??= client.send(new GetSecretValueCommand({ SecretId: process.env.APPROVAL_SECRET_ARN })).then((r) => {
    if (!r.SecretString) throw new Error('approval secret is empty');
    return r.SecretString;
  });
  return cached;
}
