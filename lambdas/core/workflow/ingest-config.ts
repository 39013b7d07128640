import * as z from 'zod/mini';
import { incidentStoreVariables } from '../contract/env-variables.js';
import type { IngestConfig } from '../incident/ingest.js';
import { logGroupClusters, type WorkflowConfig } from './workflow-config.js';

/** The ingest function's environment, validated once at cold start (the clusters come from the configuration store). */
export const ingestEnvSchema = z.object({
  ...incidentStoreVariables,
  EVIDENCE_BUCKET_NAME: z.string().check(z.minLength(1)),
  WORKFLOW_ARN: z.optional(z.string()),
  ACCOUNT_SCOPE: z._default(z.string(), 'account'),
  /** The topic of the one notice per cluster and hour that says what the limits dropped. */
  TOPIC_ARN: z.optional(z.string().check(z.minLength(1))),
});

export type IngestEnv = z.output<typeof ingestEnvSchema>;

/** What the ingest domain reads: the log groups and trusted images of the deployment's configuration. */
export function ingestConfig(env: IngestEnv, config: WorkflowConfig): IngestConfig {
  return {
    logGroupClusters: logGroupClusters(config),
    accountScope: env.ACCOUNT_SCOPE,
    trustedSandboxImages: config.trustedSandboxImages ?? [],
  };
}
