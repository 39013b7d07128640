import * as z from 'zod/mini';
import './zod-english.js';

/** A JSON environment variable parsed with `schema`: `fallback` (JSON text) when unset; required without one. */
export const jsonVariable = <T>(schema: z.ZodMiniType<T>, fallback?: string) =>
  z.pipe(
    fallback === undefined ? z.string() : z._default(z.string(), fallback),
    z.transform((s: string) => schema.parse(JSON.parse(s))),
  );

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

/** The sandbox images an operator trusts besides the node's own (a JSON array, empty when unset). */
export const trustedSandboxImagesVariable = () => jsonVariable(z.array(z.string()), '[]');
