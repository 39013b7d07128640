import type { IncidentCandidate } from '../core/incidents.js';
import type { Reject } from '../core/ingest.js';
import type { IncidentStore } from './incident-store.js';

/**
 * What opening incidents needs. Its own module (not ingest-service.ts) so the Kubernetes sweep, which
 * shares it, does not load the ingest path's event schemas at its cold start.
 */
export interface OpenIncidentDeps {
  readonly incidents: IncidentStore;
  /** Starts the incident workflow; absent when none is wired (incidents are then only recorded). */
  readonly workflow?: { start(incidentId: string, input: string): Promise<string> };
}

export interface OpenedIncidents {
  readonly opened: string[];
  /** Incidents opened, per failure class (a storm: many scopes of one class at once). */
  readonly openedByClass: Record<string, number>;
  readonly joined: string[];
  readonly started: string[];
  /** Candidates whose data no retry can record (kept as rejects by the caller). */
  readonly unrecordable: Reject[];
}

/**
 * Opens or joins the incident of each candidate and starts its workflow when it has none yet (the
 * log path and the Kubernetes sweep share it). Data errors are kept, counted in `stats.rejected`.
 */
export async function openIncidents(
  candidates: readonly IncidentCandidate[],
  stats: { rejected: number },
  deps: OpenIncidentDeps,
  now: number,
): Promise<OpenedIncidents> {
  const opened: string[] = [];
  const openedByClass: Record<string, number> = {};
  const joined: string[] = [];
  const started: string[] = [];
  const unrecordable: Reject[] = [];
  for (const candidate of candidates) {
    try {
      const incident = await deps.incidents.openOrJoin(candidate, now);
      (incident.opened ? opened : joined).push(incident.incidentId);
      if (incident.opened) openedByClass[candidate.class] = (openedByClass[candidate.class] ?? 0) + 1;
      if (deps.workflow && !incident.workflowStarted) {
        const arn = await deps.workflow.start(incident.incidentId, incident.workflowInput);
        await deps.incidents.markWorkflowStarted(candidate.key, arn);
        started.push(incident.incidentId);
      }
    } catch (e) {
      // Bad data fails the same way on every retry: keep it and go on; anything else retries the batch.
      if (!isDataError(e)) throw e;
      stats.rejected += candidate.count;
      unrecordable.push({
        reason: `incident could not be recorded or started: ${(e as Error).name}: ${(e as Error).message}`.slice(
          0,
          2000,
        ),
        record: JSON.stringify({ key: candidate.key, class: candidate.class, samples: candidate.samples }).slice(
          0,
          16_384,
        ),
      });
    }
  }
  return { opened, openedByClass, joined, started, unrecordable };
}

/** Errors no retry can fix: the request itself is invalid (sizes, names, input). */
const DATA_ERRORS = new Set(['ValidationException', 'InvalidExecutionInput', 'InvalidName', 'RangeError']);

export function isDataError(e: unknown): boolean {
  return e instanceof Error && DATA_ERRORS.has(e.name);
}
