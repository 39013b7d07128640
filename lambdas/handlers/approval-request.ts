import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod/mini';
import { documentClient, metrics, tracer, withPowertools, workflowConfig } from '../aws/runtime/workflow-runtime.js';
import { requestApproval } from '../aws/workflow/approval.js';
import { approvalKeys } from '../aws/workflow/secret.js';
import { doorAskSchema } from '../core/door/state.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

const text = () => z.string().check(z.minLength(1));

/** What "Door: ask" (waitForTaskToken) sends: the task token, the incident, what the door asks for and the evidence. */
export const approvalRequestSchema = z.object({
  taskToken: text(),
  incidentId: text(),
  class: z.string(),
  cluster: z.string(),
  node: z.optional(z.object({ instanceId: z.optional(z.string()), privateDnsName: z.optional(z.string()) })),
  ask: doorAskSchema,
  findings: z.optional(z.array(z.object({ id: z.string(), status: z.string(), summary: z.string() }))),
  reasons: z.optional(z.array(z.string())),
  cause: z.optional(z.string()),
  samples: z.optional(z.array(z.string())),
  executionArn: text(),
});

type Deps = Parameters<typeof requestApproval>[1];

/** Workflow step "Door: ask" (waitForTaskToken): mails the plan with signed approve/reject links. */
export const createHandler = (deps: () => Promise<Deps>) =>
  withPowertools(approvalRequestSchema, async (request) => {
    const out = await requestApproval(request, await deps());
    // Approvals pending ≈ requested − answered within the approval timeout (OperationsDashboard).
    metrics.singleMetric().addMetric('ApprovalsRequested', MetricUnit.Count, 1);
    return out;
  });

const env = readEnvironment('approval-request');
const sns = tracer.captureAWSv3Client(new SNSClient({ maxAttempts: 6 }));
const keys = approvalKeys(
  tracer.captureAWSv3Client(new SecretsManagerClient({ maxAttempts: 6 })),
  env.APPROVAL_SECRET_ARN,
);

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  tableName: (await workflowConfig()).tableName,
  // Links are signed with the current key; the endpoint also accepts the one before the last rotation.
  secret: (await keys.get()).current,
  sns,
  topicArn: env.TOPIC_ARN,
  callbackUrl: env.CALLBACK_URL,
  timeoutMinutes: env.APPROVAL_TIMEOUT_MINUTES,
  now: Date.now,
}));
