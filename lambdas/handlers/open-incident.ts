import { SSMClient } from '@aws-sdk/client-ssm';
import * as z from 'zod/mini';
import { documentClient, tracer, withPowertools, workflowConfig } from '../aws/runtime/workflow-runtime.js';
import { type OpenDeps, openIncident } from '../aws/workflow/open-incident.js';
import { incidentInputSchema } from '../core/workflow/workflow-config.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/** What the workflow's first task sends: the incident and the execution's id. */
export const openIncidentEventSchema = z.object({
  incident: incidentInputSchema,
  executionId: z.string().check(z.minLength(1)),
});

/** Workflow step "Open incident": lock, gate inputs, action history. */
export const createHandler = (deps: () => Promise<OpenDeps>) =>
  withPowertools(openIncidentEventSchema, async (e) => openIncident(e.incident, e.executionId, await deps()));

const env = readEnvironment('open-incident');
const ssm = tracer.captureAWSv3Client(new SSMClient({ maxAttempts: 6 }));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  ssm,
  config: await workflowConfig(),
  now: Date.now,
  region: env.AWS_REGION,
}));
