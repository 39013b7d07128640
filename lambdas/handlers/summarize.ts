import { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod/mini';
import { documentClient, metrics, tracer, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { type SummarizeDeps, type SummarizeInput, summarizeIncident } from '../aws/workflow/summarize.js';
import { incidentInputSchema } from '../core/workflow-config.js';
import '../core/zod-english.js';

/**
 * The workflow state Summarize and Record failure receive: the incident (validated as Open incident
 * validates it) and the execution; the records of earlier steps (plan, remedy, action, approval …)
 * pass through as the state machine wrote them.
 */
export const summarizeEventSchema = z.looseObject({
  ...incidentInputSchema.shape,
  execution: z.looseObject({ arn: z.string().check(z.minLength(1)), startedAt: z.optional(z.string()) }),
});

/** Workflow steps "Summarize" and "Record failure": evidence, history row, metrics, lock release. */
export const createHandler = (deps: () => Promise<SummarizeDeps>) =>
  withPowertools(summarizeEventSchema, async (input) =>
    summarizeIncident(input as unknown as SummarizeInput, await deps()),
  );

const s3 = tracer.captureAWSv3Client(new S3Client({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  s3,
  config: await workflowConfig(),
  metrics,
  now: Date.now,
}));
