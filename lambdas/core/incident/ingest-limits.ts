import * as z from 'zod/mini';
import '../text/zod-english.js';

/**
 * How much one delivery, and one cluster in one hour, may open and start: a bound on what log lines
 * (which tenants write) can make pod-doctor do. Each rank (provenance.ts) has its own budgets: AWS and
 * node rank per cluster (and fleet account) and hour, tenant rank per namespace and per cluster and hour. What is over a limit is dropped from evaluation,
 * counted (metrics `IncidentsDropped`, `ExecutionsDeferred`), kept (`dropped/` in the evidence bucket)
 * and summarized in one notice per cluster and hour. Every e-mail comes from an execution (its summary
 * and approval requests) or from that notice, so the execution limits bound the e-mails too. Shared by
 * lib/config.ts (cdk.json) and the configuration document the functions that open incidents read.
 */
export interface IngestLimits {
  /** New incidents one delivery (one invocation) may open, and executions it may start. */
  readonly maxIncidentsPerDelivery: number;
  /** New incidents one cluster may open in one clock hour. */
  readonly maxIncidentsPerClusterPerHour: number;
  /** Executions (first evaluations and re-evaluations) one cluster may start in one clock hour. */
  readonly maxExecutionsPerClusterPerHour: number;
  /**
   * Times an open incident is evaluated again when new lines arrive after its execution ended without
   * a verified repair (the first evaluation not counted).
   */
  readonly maxReevaluationsPerIncident: number;
  /** Minutes from the start of an incident's last execution before new lines may start another. */
  readonly reevaluateAfterMinutes: number;
  /**
   * Tenant-rank signals (Kubernetes Event objects, tenant containers' lines) one namespace of a cluster
   * may have corroborated (a pod or Node read each) in one clock hour; beyond it they are kept and counted.
   */
  readonly maxTenantSignalsPerNamespacePerHour: number;
  /** Incidents, and executions, corroborated tenant-rank signals of one namespace may open and start per cluster-hour. */
  readonly maxTenantIncidentsPerNamespacePerHour: number;
  /**
   * Incidents, and executions, tenant-rank signals of every namespace together may open and start per
   * cluster-hour: their own budget, never the node or AWS rank's.
   */
  readonly maxTenantIncidentsPerClusterPerHour: number;
}

export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxIncidentsPerDelivery: 20,
  maxIncidentsPerClusterPerHour: 100,
  maxExecutionsPerClusterPerHour: 60,
  maxReevaluationsPerIncident: 3,
  reevaluateAfterMinutes: 5,
  maxTenantSignalsPerNamespacePerHour: 30,
  maxTenantIncidentsPerNamespacePerHour: 5,
  maxTenantIncidentsPerClusterPerHour: 30,
};

const field = (max: number, byDefault: number) => z._default(z.int().check(z.minimum(0), z.maximum(max)), byDefault);

/** The limits as the configuration document carries them (lambdas/core/workflow/workflow-config.ts), each field over its default. */
export const ingestLimitsSchema = z.strictObject({
  maxIncidentsPerDelivery: field(100_000, DEFAULT_INGEST_LIMITS.maxIncidentsPerDelivery),
  maxIncidentsPerClusterPerHour: field(100_000, DEFAULT_INGEST_LIMITS.maxIncidentsPerClusterPerHour),
  maxExecutionsPerClusterPerHour: field(100_000, DEFAULT_INGEST_LIMITS.maxExecutionsPerClusterPerHour),
  maxReevaluationsPerIncident: field(20, DEFAULT_INGEST_LIMITS.maxReevaluationsPerIncident),
  reevaluateAfterMinutes: field(1440, DEFAULT_INGEST_LIMITS.reevaluateAfterMinutes),
  maxTenantSignalsPerNamespacePerHour: field(100_000, DEFAULT_INGEST_LIMITS.maxTenantSignalsPerNamespacePerHour),
  maxTenantIncidentsPerNamespacePerHour: field(100_000, DEFAULT_INGEST_LIMITS.maxTenantIncidentsPerNamespacePerHour),
  maxTenantIncidentsPerClusterPerHour: field(100_000, DEFAULT_INGEST_LIMITS.maxTenantIncidentsPerClusterPerHour),
});
