import { EKSClient } from '@aws-sdk/client-eks';
import { type DecideDeps, decideEventSchema, decideIncident } from '../aws/workflow/decide.js';

export { decideEventSchema };

import { documentClient, tracer, withPowertools, workflowConfig } from '../aws/runtime/workflow-runtime.js';
import '../core/text/zod-english.js';

/** Workflow step "Decide": findings → safety policy → plan, and the requests the door runs. */
export const createHandler = (deps: () => Promise<DecideDeps>) =>
  withPowertools(decideEventSchema, async (input) => decideIncident(input, await deps()));

const eks = tracer.captureAWSv3Client(new EKSClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  eks,
  ddb: documentClient(),
  config: await workflowConfig(),
  now: Date.now,
}));
