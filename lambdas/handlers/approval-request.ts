import { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod';
import { requestApproval } from '../aws/workflow/approval.js';
import { documentClient, tracer, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { approvalSecret } from '../aws/workflow/secret.js';

/** What "Request approval" (waitForTaskToken) sends: the task token, the incident and the plan to review. */
export const approvalRequestSchema = z.object({
  taskToken: z.string().min(1),
  incidentId: z.string().min(1),
  class: z.string(),
  cluster: z.string(),
  node: z.looseObject({ instanceId: z.string().optional(), privateDnsName: z.string().optional() }).optional(),
  plan: z.looseObject({
    nodeAction: z.looseObject({ id: z.string(), description: z.string() }).nullish(),
    findings: z.array(z.looseObject({ id: z.string(), status: z.string(), summary: z.string() })).optional(),
    reasons: z.array(z.string()).optional(),
  }),
  executionArn: z.string().min(1),
  remedy: z.looseObject({ remedy: z.string(), change: z.string(), diff: z.array(z.string()) }).optional(),
});

type Deps = Parameters<typeof requestApproval>[1];

/** Workflow step "Request approval" (waitForTaskToken): mails the plan with signed approve/reject links. */
export const createHandler = (deps: () => Promise<Deps>) =>
  withPowertools(approvalRequestSchema, async (request) => requestApproval(request, await deps()));

const sns = tracer.captureAWSv3Client(new SNSClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  tableName: workflowConfig().tableName,
  secret: await approvalSecret(),
  sns,
  topicArn: String(process.env.TOPIC_ARN),
  callbackUrl: String(process.env.CALLBACK_URL),
  timeoutMinutes: Number(process.env.APPROVAL_TIMEOUT_MINUTES ?? 60),
  now: Date.now,
}));
