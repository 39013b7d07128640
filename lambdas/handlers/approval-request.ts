import { SNSClient } from '@aws-sdk/client-sns';
import { type ApprovalRequest, requestApproval } from '../aws/workflow/approval.js';
import { documentClient, tracer, workflowConfig } from '../aws/workflow/runtime.js';
import { approvalSecret } from '../aws/workflow/secret.js';

const sns = tracer.captureAWSv3Client(new SNSClient({ maxAttempts: 6 }));

/** Workflow step "Request approval" (waitForTaskToken): mails the plan with signed approve/reject links. */
export const handler = async (event: ApprovalRequest) =>
  requestApproval(event, {
    ddb: documentClient(),
    tableName: workflowConfig().tableName,
    secret: await approvalSecret(),
    sns,
    topicArn: String(process.env.TOPIC_ARN),
    callbackUrl: String(process.env.CALLBACK_URL),
    timeoutMinutes: Number(process.env.APPROVAL_TIMEOUT_MINUTES ?? 60),
    now: Date.now,
  });
