import { SSMClient } from '@aws-sdk/client-ssm';
import { openIncident } from '../aws/workflow/open-incident.js';
import { documentClient, tracer, workflowConfig } from '../aws/workflow/runtime.js';
import { incidentInputSchema } from '../core/workflow-config.js';

const ssm = tracer.captureAWSv3Client(new SSMClient({ maxAttempts: 6 }));

/** Workflow step "Open incident": lock, gate inputs, action history. */
export const handler = async (event: { incident: unknown; executionId: string }) =>
  openIncident(incidentInputSchema.parse(event.incident), event.executionId, {
    ddb: documentClient(),
    ssm,
    config: workflowConfig(),
    now: Date.now,
  });
