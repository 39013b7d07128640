import { SSMClient } from '@aws-sdk/client-ssm';
import { type ActGateDeps, actGate, actGateInputSchema } from '../aws/workflow/act-gate.js';
import { documentClient, tracer, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';

/** Workflow step "Act: gate": re-read the safety limits and reserve the hourly-cap slot right before Act. */
export const createHandler = (deps: () => Promise<ActGateDeps>) =>
  withPowertools(actGateInputSchema, async (input) => actGate(input, await deps()));

const ssm = tracer.captureAWSv3Client(new SSMClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  ssm,
  config: await workflowConfig(),
  now: Date.now,
}));
