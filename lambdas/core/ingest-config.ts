import * as z from 'zod';
import type { IngestConfig } from './ingest.js';

/** The ingest function's environment, validated once at cold start. */
export const ingestEnvSchema = z.object({
  INCIDENT_TABLE_NAME: z.string().min(1),
  EVIDENCE_BUCKET_NAME: z.string().min(1),
  INCIDENT_WINDOW_MINUTES: z.coerce.number().int().min(1),
  HISTORY_RETENTION_DAYS: z.coerce.number().int().min(1).default(365),
  WORKFLOW_ARN: z.string().optional(),
  LOG_GROUP_CLUSTERS: z
    .string()
    .default('{}')
    .transform((s) => z.record(z.string(), z.string()).parse(JSON.parse(s))),
  ACCOUNT_SCOPE: z.string().default('account'),
  TRUSTED_SANDBOX_IMAGES: z
    .string()
    .default('[]')
    .transform((s) => z.array(z.string()).parse(JSON.parse(s))),
  /** Names of the configured clusters (their node and aws-node roles scope CloudTrail role changes). */
  WATCHED_CLUSTERS: z
    .string()
    .default('[]')
    .transform((s) => z.array(z.string()).parse(JSON.parse(s))),
});

export type IngestEnv = z.output<typeof ingestEnvSchema>;

export function ingestConfig(env: IngestEnv): IngestConfig {
  return {
    logGroupClusters: env.LOG_GROUP_CLUSTERS,
    accountScope: env.ACCOUNT_SCOPE,
    trustedSandboxImages: env.TRUSTED_SANDBOX_IMAGES,
  };
}
