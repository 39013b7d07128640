import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { SQSBatchResponse } from 'aws-lambda';
import * as z from 'zod/mini';
import { readEnvironment } from '../aws/runtime/environment.js';
import {
  documentClient,
  logger,
  metrics,
  tracer,
  withPowertools,
  workflowConfig,
} from '../aws/runtime/workflow-runtime.js';
import { type ChatDecision, decideInChat } from '../aws/workflow/approval-chat.js';
import type { ApprovalPageDeps } from '../aws/workflow/approval-page.js';
import { type ApprovalKeys, approvalKeys } from '../aws/workflow/secret.js';
import '../core/text/zod-english.js';

/** An SQS batch, by the fields the consumer reads: the body and the sender SQS stamps (SenderId). */
export const chatApprovalEventSchema = z.looseObject({
  Records: z.array(
    z.looseObject({
      messageId: z.string(),
      body: z.string(),
      attributes: z.looseObject({ SenderId: z.string() }),
    }),
  ),
});

/** Where the consumer reads its keys (as the review page: cached, and read again for a key rotated in since). */
export interface ChatApprovalDeps {
  readonly deps: (keys: ApprovalKeys) => Promise<ApprovalPageDeps>;
  readonly keys: { get(): Promise<ApprovalKeys>; refresh(): Promise<ApprovalKeys> };
}

async function decide(body: string, sender: string, d: ChatApprovalDeps): Promise<ChatDecision> {
  const first = await decideInChat(body, sender, await d.deps(await d.keys.get()));
  if (first.outcome !== 'refused' || !first.reason.startsWith('invalid signature')) return first;
  return decideInChat(body, sender, await d.deps(await d.keys.refresh()));
}

/**
 * The chat-approval queue's consumer: each message is one press of Approve or Reject on an
 * approval-pending chat card. A refused message is logged and counted (never retried: it cannot
 * become valid); one Step Functions could not take is returned to the queue (and, after the
 * queue's retries, dead-lettered).
 */
export const createHandler = (d: ChatApprovalDeps) =>
  withPowertools(chatApprovalEventSchema, async (event): Promise<SQSBatchResponse> => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      const sender = record.attributes.SenderId;
      const r = await decide(record.body.slice(0, 1024), sender, d);
      const m = metrics.singleMetric();
      m.addDimension('decision', r.outcome);
      m.addMetric('ChatApprovals', MetricUnit.Count, 1);
      if (r.outcome === 'retry') batchItemFailures.push({ itemIdentifier: record.messageId });
      if (r.outcome === 'refused' || r.outcome === 'retry') logger.warn('chat approval not taken', { sender, ...r });
      else logger.info('chat approval', { sender, ...r });
    }
    return { batchItemFailures };
  });

const env = readEnvironment('approval-chat');
const sfn = tracer.captureAWSv3Client(new SFNClient({ maxAttempts: 6 }));

export const handler = createHandler({
  keys: approvalKeys(tracer.captureAWSv3Client(new SecretsManagerClient({ maxAttempts: 6 })), env.APPROVAL_SECRET_ARN),
  deps: async (keys) => ({
    ddb: documentClient(),
    tableName: (await workflowConfig()).tableName,
    secret: keys.current,
    previousSecret: keys.previous,
    sfn,
    now: Date.now,
  }),
});
