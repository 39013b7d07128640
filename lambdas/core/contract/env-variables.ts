import * as z from 'zod/mini';
import '../text/zod-english.js';

const positiveInteger = () => z.coerce.number().check(z.int(), z.minimum(1));

/**
 * The variables an IncidentStore is built from: every function that opens incidents (ingest, the
 * Kubernetes sweep) reads them alike.
 */
export const incidentStoreVariables = {
  INCIDENT_TABLE_NAME: z.string().check(z.minLength(1)),
  INCIDENT_WINDOW_MINUTES: positiveInteger(),
  HISTORY_RETENTION_DAYS: z._default(positiveInteger(), 365),
};

/**
 * The variables that locate a function's configuration in the configuration store (the construct
 * `ConfigStore` sets them, lambdas/aws/runtime/config-store.ts reads them).
 */
export const CONFIG_VARIABLES = { table: 'CONFIG_TABLE_NAME', version: 'CONFIG_VERSION' } as const;
