import { S3Client } from '@aws-sdk/client-s3';
import { documentClient, metrics, tracer, withPowertools, workflowConfig } from '../aws/runtime/workflow-runtime.js';
import { type SummarizeDeps, summarizeEventSchema, summarizeIncident } from '../aws/workflow/summarize.js';

export { summarizeEventSchema };

import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/**
 * Workflow steps "Summarize" and "Record failure": the execution state (validated as the workflow
 * contract defines it), summarized into evidence, a history row and metrics; the lock released.
 */
export const createHandler = (deps: () => Promise<SummarizeDeps>) =>
  withPowertools(summarizeEventSchema, async (input) => summarizeIncident(input, await deps()));

const env = readEnvironment('summarize');
const s3 = tracer.captureAWSv3Client(new S3Client({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  s3,
  config: await workflowConfig(),
  metrics,
  now: Date.now,
  region: env.AWS_REGION,
}));
