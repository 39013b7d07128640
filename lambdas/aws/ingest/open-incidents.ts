import type { IncidentCandidate } from '../../core/incident/incidents.js';
import type { Reject } from '../../core/incident/ingest.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../../core/incident/ingest-limits.js';
import { evaluationName, reevaluationDue, reevaluationInput } from '../../core/incident/reevaluation.js';
import { mapBounded } from '../../core/text/map-bounded.js';
import type { IncidentBudget } from './incident-budget.js';
import { boundedInput, type IncidentStore, type OpenIncident } from './incident-store.js';

/**
 * What opening incidents needs. Its own module (not ingest-service.ts) so the Kubernetes sweep, which
 * shares it, does not load the ingest path's event schemas at its cold start.
 */
export interface OpenIncidentDeps {
  readonly incidents: IncidentStore;
  /** Starts the incident workflow; absent when none is wired (incidents are then only recorded). */
  readonly workflow?: { start(name: string, input: string): Promise<string> };
  /**
   * The clusters' hourly budgets of incidents and executions.
   * @default none: only the per-delivery limit applies
   */
  readonly budget?: IncidentBudget;
  /** @default DEFAULT_INGEST_LIMITS */
  readonly limits?: IngestLimits;
}

/** A candidate that was not evaluated because a limit was reached: counted, kept, summarized. */
export interface DroppedCandidate {
  readonly cluster: string;
  readonly class: string;
  readonly key: string;
  readonly count: number;
  /** Which limit: `delivery`, `cluster-hour incidents`, `cluster-hour executions`. */
  readonly limit: string;
  readonly samples: readonly string[];
}

export interface OpenedIncidents {
  readonly opened: string[];
  /** Incidents opened, per failure class (a storm: many scopes of one class at once). */
  readonly openedByClass: Record<string, number>;
  readonly joined: string[];
  /** Executions started: first evaluations and re-evaluations (by execution name). */
  readonly started: string[];
  /** Re-evaluations started (by execution name): new lines after a run that did not verify a repair. */
  readonly reevaluated: string[];
  /** Candidates no incident was opened for (a limit). */
  readonly dropped: DroppedCandidate[];
  /** Incidents whose execution waits for budget (a later line starts it). */
  readonly deferred: DroppedCandidate[];
  /** Candidates whose data no retry can record (kept as rejects by the caller). */
  readonly unrecordable: Reject[];
}

/**
 * Opens or joins the incident of each candidate and starts an evaluation (execution) when it has none
 * yet, or when new lines arrive after one ended without a verified repair (the log path, the Kubernetes
 * sweep and every later source share it). Bounded: per delivery and per cluster and hour (the budget);
 * candidates are taken most lines first, so a flood of one-line candidates cannot crowd out a real
 * failure. Data errors are kept, counted in `stats.rejected`.
 */
export async function openIncidents(
  candidates: readonly IncidentCandidate[],
  stats: { rejected: number },
  deps: OpenIncidentDeps,
  now: number,
): Promise<OpenedIncidents> {
  const out: OpenedIncidents = {
    opened: [],
    openedByClass: {},
    joined: [],
    started: [],
    reevaluated: [],
    dropped: [],
    deferred: [],
    unrecordable: [],
  };
  const run = new DeliveryRun(deps, out, now);
  const take = async (candidate: IncidentCandidate) => {
    try {
      await run.take(candidate);
    } catch (e) {
      // Bad data fails the same way on every retry: keep it and go on; anything else retries the batch.
      if (!isDataError(e)) throw e;
      stats.rejected += candidate.count;
      out.unrecordable.push(unrecordable(candidate, e as Error));
    }
  };
  const ordered = [...candidates].sort((a, b) => b.count - a.count || a.firstSeen - b.firstSeen);
  // One at a time while the delivery may still open or start (the limits take candidates in this order);
  // once both are spent the rest can only join an open incident (or be dropped): several at once.
  let i = 0;
  while (i < ordered.length && !run.spent()) await take(ordered[i++]);
  await mapBounded(ordered.slice(i), JOINS_AT_ONCE, take);
  return out;
}

/** Joins in flight at once once the delivery's limits are spent (a flood of distinct candidates). */
const JOINS_AT_ONCE = 16;

function unrecordable(candidate: IncidentCandidate, e: Error): Reject {
  return {
    reason: `incident could not be recorded or started: ${e.name}: ${e.message}`.slice(0, 2000),
    record: JSON.stringify({ key: candidate.key, class: candidate.class, samples: candidate.samples }).slice(0, 16_384),
  };
}

/** One delivery's candidates against the limits: what it opened, joined, started and dropped. */
class DeliveryRun {
  private starts = 0;
  private readonly limits: IngestLimits;

  constructor(
    private readonly deps: OpenIncidentDeps,
    private readonly out: OpenedIncidents,
    private readonly now: number,
  ) {
    this.limits = deps.limits ?? DEFAULT_INGEST_LIMITS;
  }

  /** Nothing more can be opened or started by this delivery: what is left can only join. */
  spent(): boolean {
    return (
      this.out.opened.length >= this.limits.maxIncidentsPerDelivery &&
      this.starts >= this.limits.maxIncidentsPerDelivery
    );
  }

  async take(c: IncidentCandidate): Promise<void> {
    const joined = await this.deps.incidents.join(c);
    const incident = joined ?? (await this.open(c));
    if (!incident) return;
    (incident.opened ? this.out.opened : this.out.joined).push(incident.incidentId);
    if (incident.opened) this.out.openedByClass[c.class] = (this.out.openedByClass[c.class] ?? 0) + 1;
    if (!this.deps.workflow) return;
    if (!incident.workflowStarted) await this.startFirst(c, incident);
    else if (reevaluationDue(incident, this.limits, this.now)) await this.reevaluate(c, incident);
  }

  /** Opens the candidate's incident within the delivery's and the cluster's hourly limits. */
  private async open(c: IncidentCandidate): Promise<OpenIncident | undefined> {
    if (this.out.opened.length >= this.limits.maxIncidentsPerDelivery) return this.drop(c, 'delivery');
    const budget = this.deps.budget;
    if (budget && !(await budget.take(c.cluster, 'incidents', this.now))) return this.drop(c, 'cluster-hour incidents');
    const incident = await this.deps.incidents.open(c, this.now);
    // Another invocation opened it meanwhile: joined, and the incident slot goes back.
    if (!incident.opened && budget) await budget.giveBack(c.cluster, 'incidents', this.now);
    return incident;
  }

  private drop(c: IncidentCandidate, limit: string, to = this.out.dropped): undefined {
    to.push({ cluster: c.cluster, class: c.class, key: c.key, count: c.count, limit, samples: c.samples });
    return undefined;
  }

  /** An execution slot of the delivery and of the cluster's hour; undefined (and deferred) when none is left. */
  private async slot(c: IncidentCandidate): Promise<boolean> {
    if (this.starts >= this.limits.maxIncidentsPerDelivery) {
      this.drop(c, 'delivery', this.out.deferred);
      return false;
    }
    if (this.deps.budget && !(await this.deps.budget.take(c.cluster, 'executions', this.now))) {
      this.drop(c, 'cluster-hour executions', this.out.deferred);
      return false;
    }
    this.starts++;
    return true;
  }

  /**
   * The incident's first evaluation. Invocations racing on a new incident may all try to start it (Step
   * Functions returns the one execution): the claim on the row decides which of them pays the budget.
   */
  private async startFirst(c: IncidentCandidate, incident: OpenIncident): Promise<void> {
    if (!this.deps.workflow) return;
    if (!incident.startBudgeted) {
      if (!(await this.slot(c))) return;
      if (!(await this.deps.incidents.claimFirstStart(c.key))) await this.giveBack(c);
    }
    const arn = await this.deps.workflow.start(incident.incidentId, incident.workflowInput);
    await this.deps.incidents.markWorkflowStarted(c.key, arn, this.now);
    this.out.started.push(incident.incidentId);
  }

  /** Gives back an execution slot another invocation paid for (or claimed) instead. */
  private async giveBack(c: IncidentCandidate): Promise<void> {
    this.starts--;
    await this.deps.budget?.giveBack(c.cluster, 'executions', this.now);
  }

  /** A new evaluation of an incident whose last run verified no repair: claimed once, however many race. */
  private async reevaluate(c: IncidentCandidate, incident: OpenIncident): Promise<void> {
    if (!this.deps.workflow || !(await this.slot(c))) return;
    if (!(await this.deps.incidents.claimReevaluation(c.key, incident.runs, this.now))) return this.giveBack(c);
    const evaluation = incident.runs + 1;
    const name = evaluationName(incident.incidentId, evaluation);
    const input = boundedInput(reevaluationInput(incident.workflowInput, c, evaluation));
    const arn = await this.deps.workflow.start(name, input);
    await this.deps.incidents.markReevaluationStarted(c.key, arn);
    this.out.started.push(name);
    this.out.reevaluated.push(name);
  }
}

/** Errors no retry can fix: the request itself is invalid (sizes, names, input). */
const DATA_ERRORS = new Set(['ValidationException', 'InvalidExecutionInput', 'InvalidName', 'RangeError']);

export function isDataError(e: unknown): boolean {
  return e instanceof Error && DATA_ERRORS.has(e.name);
}
