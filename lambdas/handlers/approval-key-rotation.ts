import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import { logger, withPowertools } from '../aws/runtime/powertools.js';
import { rotateApprovalKey } from '../aws/workflow/key-rotation.js';
import '../core/text/zod-english.js';

/** What Secrets Manager sends a rotation function. */
export const rotationEventSchema = z.object({
  SecretId: z.string().check(z.minLength(1)),
  ClientRequestToken: z.string().check(z.minLength(32), z.maxLength(64)),
  Step: z.enum(['createSecret', 'setSecret', 'testSecret', 'finishSecret']),
});

/** Scheduled rotation of the approval signing key: one step per invocation, each safe to retry. */
export const createHandler = (sm: SecretsManagerClient) =>
  withPowertools(rotationEventSchema, async (e) => {
    const outcome = await rotateApprovalKey(sm, e.SecretId, e.ClientRequestToken, e.Step);
    logger.info('approval key rotation', { step: e.Step, outcome });
    return outcome;
  });

export const handler = createHandler(new SecretsManagerClient({ maxAttempts: 6 }));
