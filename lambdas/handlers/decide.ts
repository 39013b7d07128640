import { EKSClient } from '@aws-sdk/client-eks';
import * as z from 'zod/mini';
import { type DecideDeps, type DecideInput, decideIncident } from '../aws/workflow/decide.js';
import { documentClient, tracer, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { incidentInputSchema } from '../core/workflow-config.js';
import '../core/zod-english.js';

/**
 * The workflow state Decide receives: the incident (validated as Open incident validates it), what
 * Open incident found, the resolved node (or the error of Resolve node) and the diagnosis branches;
 * the objects of earlier steps pass through as the state machine wrote them.
 */
export const decideEventSchema = z.looseObject({
  ...incidentInputSchema.shape,
  open: z.looseObject({ duplicate: z.boolean(), gate: z.looseObject({ mode: z.string() }) }),
  node: z.optional(z.looseObject({})),
  resolveError: z.optional(z.looseObject({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
  diagnosis: z.array(z.looseObject({})),
});

/** Workflow step "Decide": findings → safety policy → plan. */
export const createHandler = (deps: () => Promise<DecideDeps>) =>
  withPowertools(decideEventSchema, async (input) => decideIncident(input as unknown as DecideInput, await deps()));

const eks = tracer.captureAWSv3Client(new EKSClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  eks,
  ddb: documentClient(),
  config: await workflowConfig(),
  now: Date.now,
}));
