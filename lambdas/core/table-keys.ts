/**
 * Partition key prefixes of the incident table that the infrastructure (lib/) scopes grants by
 * (`dynamodb:LeadingKeys`) and the functions build keys with (lambdas/aws/incident-table.ts, which
 * re-exports them): one definition for both sides.
 */

/** Partition key prefix of an incident's rows (the open row and its history rows). */
export const INCIDENT_PREFIX = 'INCIDENT#';
/** Partition key prefix of the Kubernetes events reader's per-cluster state (lease, resourceVersion). */
export const EVENTS_STATE_PREFIX = 'EVENTS#';
/** Partition key prefix of the events the reader counted (one item per event uid, per incident window). */
export const EVENT_SEEN_PREFIX = 'EVENTSEEN#';
/** Partition key prefix of the signal self-check's per-cluster state. */
export const SIGNAL_STATE_PREFIX = 'SIGNAL#';
