import { EKSClient } from '@aws-sdk/client-eks';
import { type DecideInput, decideIncident } from '../aws/workflow/decide.js';
import { documentClient, tracer, workflowConfig } from '../aws/workflow/runtime.js';

const eks = tracer.captureAWSv3Client(new EKSClient({ maxAttempts: 6 }));

/** Workflow step "Decide": findings → safety policy → plan. */
export const handler = async (event: DecideInput) =>
  decideIncident(event, { eks, ddb: documentClient(), config: workflowConfig(), now: Date.now });
