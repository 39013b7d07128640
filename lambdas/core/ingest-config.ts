import * as z from 'zod/mini';
import { incidentStoreVariables, jsonVariable, trustedSandboxImagesVariable } from './env-variables.js';
import type { IngestConfig } from './ingest.js';

/** The ingest function's environment, validated once at cold start. */
export const ingestEnvSchema = z.object({
  ...incidentStoreVariables,
  EVIDENCE_BUCKET_NAME: z.string().check(z.minLength(1)),
  WORKFLOW_ARN: z.optional(z.string()),
  LOG_GROUP_CLUSTERS: jsonVariable(z.record(z.string(), z.string()), '{}'),
  ACCOUNT_SCOPE: z._default(z.string(), 'account'),
  TRUSTED_SANDBOX_IMAGES: trustedSandboxImagesVariable(),
  /** Names of the configured clusters (their node and aws-node roles scope CloudTrail role changes). */
  WATCHED_CLUSTERS: jsonVariable(z.array(z.string()), '[]'),
});

export type IngestEnv = z.output<typeof ingestEnvSchema>;

export function ingestConfig(env: IngestEnv): IngestConfig {
  return {
    logGroupClusters: env.LOG_GROUP_CLUSTERS,
    accountScope: env.ACCOUNT_SCOPE,
    trustedSandboxImages: env.TRUSTED_SANDBOX_IMAGES,
  };
}
