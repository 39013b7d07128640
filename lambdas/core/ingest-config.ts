import * as z from 'zod/mini';
import type { IngestConfig } from './ingest.js';
import './zod-english.js';

/** A JSON variable (`fallback` when unset), parsed with `schema`. */
const jsonVariable = <T>(fallback: string, schema: z.ZodMiniType<T>) =>
  z.pipe(
    z._default(z.string(), fallback),
    z.transform((s: string) => schema.parse(JSON.parse(s))),
  );

/** The ingest function's environment, validated once at cold start. */
export const ingestEnvSchema = z.object({
  INCIDENT_TABLE_NAME: z.string().check(z.minLength(1)),
  EVIDENCE_BUCKET_NAME: z.string().check(z.minLength(1)),
  INCIDENT_WINDOW_MINUTES: z.coerce.number().check(z.int(), z.minimum(1)),
  HISTORY_RETENTION_DAYS: z._default(z.coerce.number().check(z.int(), z.minimum(1)), 365),
  WORKFLOW_ARN: z.optional(z.string()),
  LOG_GROUP_CLUSTERS: jsonVariable('{}', z.record(z.string(), z.string())),
  ACCOUNT_SCOPE: z._default(z.string(), 'account'),
  TRUSTED_SANDBOX_IMAGES: jsonVariable('[]', z.array(z.string())),
  /** Names of the configured clusters (their node and aws-node roles scope CloudTrail role changes). */
  WATCHED_CLUSTERS: jsonVariable('[]', z.array(z.string())),
});

export type IngestEnv = z.output<typeof ingestEnvSchema>;

export function ingestConfig(env: IngestEnv): IngestConfig {
  return {
    logGroupClusters: env.LOG_GROUP_CLUSTERS,
    accountScope: env.ACCOUNT_SCOPE,
    trustedSandboxImages: env.TRUSTED_SANDBOX_IMAGES,
  };
}
