import { type ChangeRecord, changeRecord } from '../core/change-records.js';
import { classifyCloudTrail } from '../core/cloudtrail.js';
import { cloudTrailEventSchema } from '../core/cloudtrail-schema.js';
import { type AccountFacts, type FactsNeeded, factsNeeded } from '../core/cloudtrail-scope.js';
import { inAccount } from '../core/fleet.js';
import { aggregate, type IncidentCandidate } from '../core/incidents.js';
import type { Reject } from '../core/ingest.js';
import { type IngestConfig, type IngestStats, readEvent } from '../core/ingest.js';
import type { IncidentStore } from './incident-store.js';
import { openIncidents } from './open-incidents.js';

export interface IngestDeps {
  readonly incidents: IncidentStore;
  /** Keeps unreadable records (the evidence bucket in production). */
  readonly rejects: { keep(rejects: readonly Reject[], requestId: string, now: number): Promise<string | undefined> };
  /** Starts the incident workflow; absent when none is wired (incidents are then only recorded). */
  readonly workflow?: { start(incidentId: string, input: string): Promise<string> };
  readonly config: IngestConfig;
  readonly now: () => number;
  /** Looks up roles, endpoint security groups and nodes a CloudTrail event names (AccountFactsLookup). */
  readonly facts?: { factsFor(needed: FactsNeeded): Promise<AccountFacts> };
  /** Indexes breaking changes for change.recent (ChangeIndex). */
  readonly changes?: { put(r: ChangeRecord): Promise<void> };
  /** The fleet member the event came from, as EventBridge stamped it (absent: this account). */
  readonly where?: { readonly account: string; readonly region: string };
}

export interface IngestOutcome {
  readonly stats: IngestStats;
  readonly incidentsOpened: string[];
  /** Incidents opened, per failure class. */
  readonly openedByClass: Record<string, number>;
  readonly incidentsJoined: string[];
  readonly workflowsStarted: string[];
  readonly rejectKey?: string;
  /** The breaking change indexed from a CloudTrail event, if any. */
  readonly changeIndexed?: string;
}

/**
 * One invocation of the ingest path: classify → fold into candidates → open or join each incident →
 * start the workflow of every incident that has none yet. Rejects are kept before anything else, so
 * a later failure (and Lambda retry) never loses them.
 */
export async function ingest(event: unknown, requestId: string, deps: IngestDeps): Promise<IngestOutcome> {
  const now = deps.now();
  const { facts, changeIndexed } = await cloudTrailContext(event, deps);
  const { occurrences, rejects, stats } = readEvent(event, deps.config, now, facts);
  const { where } = deps;
  const candidates = aggregate(occurrences).map((c) => (where ? inAccount(c, where.account, where.region) : c));
  return { ...(await keepAndOpen(rejects, candidates, stats, requestId, deps, now)), changeIndexed };
}

/**
 * Keeps the rejects (before anything else: a later failure and Lambda retry never loses them), then
 * opens or joins each candidate's incident; what cannot be recorded is kept too. The ingest path and
 * the fleet hub's intake share it.
 */
export async function keepAndOpen(
  rejects: readonly Reject[],
  candidates: readonly IncidentCandidate[],
  stats: IngestStats,
  requestId: string,
  deps: IngestDeps,
  now: number,
): Promise<IngestOutcome> {
  const rejectKey = await deps.rejects.keep(rejects, requestId, now);
  const { opened, openedByClass, joined, started, unrecordable } = await openIncidents(candidates, stats, deps, now);
  const unrecordableKey = await deps.rejects.keep(unrecordable, `${requestId}-unrecordable`, now);
  return {
    stats,
    incidentsOpened: opened,
    openedByClass,
    incidentsJoined: joined,
    workflowsStarted: started,
    rejectKey: rejectKey ?? unrecordableKey,
  };
}

/**
 * For a CloudTrail event: index it when it is a breaking change (whatever its relevance: change.recent
 * asks by resource, and an unindexed change is lost), and look up the facts that scope it.
 */
async function cloudTrailContext(
  event: unknown,
  deps: IngestDeps,
): Promise<{ facts: AccountFacts; changeIndexed?: string }> {
  const parsed = cloudTrailEventSchema.safeParse(event);
  if (!parsed.success) return { facts: {} };
  const change = changeRecord(parsed.data);
  if (change && deps.changes) await deps.changes.put(change);
  const facts = deps.facts ? await deps.facts.factsFor(factsNeeded(parsed.data, classifyCloudTrail(parsed.data))) : {};
  return { facts, changeIndexed: change && deps.changes ? change.eventId : undefined };
}
