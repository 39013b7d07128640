import { SSMClient } from '@aws-sdk/client-ssm';
import { actGate, actGateInputSchema } from '../aws/workflow/act-gate.js';
import { documentClient, tracer, workflowConfig } from '../aws/workflow/runtime.js';

const ssm = tracer.captureAWSv3Client(new SSMClient({ maxAttempts: 6 }));

/** Workflow step "Act: gate": re-read the safety limits and reserve the hourly-cap slot right before Act. */
export const handler = async (event: unknown) =>
  actGate(actGateInputSchema.parse(event), { ddb: documentClient(), ssm, config: workflowConfig(), now: Date.now });
