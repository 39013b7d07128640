import type { BudgetScope } from '../../core/contract/incident-table.js';
import { candidateRank, type IncidentCandidate } from '../../core/incident/incidents.js';
import type { Reject } from '../../core/incident/ingest.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../../core/incident/ingest-limits.js';
import { type Rank, rankOrder } from '../../core/incident/provenance.js';
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
  /**
   * Which limit: `delivery`, `cluster-hour incidents`, `cluster-hour executions` (per rank: `tenant
   * namespace-hour …` for tenant rank), or `uncorroborated` (a tenant-rank signal no higher rank backs).
   */
  readonly limit: string;
  readonly samples: readonly string[];
  /** The rank whose budget or rule dropped it. */
  readonly rank: Rank;
  /** Tenant rank: the namespace. */
  readonly namespace?: string;
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
  const ordered = deliveryOrder(candidates);
  // One at a time while the delivery may still open or start for the candidate's slot (the limits take
  // candidates in this order); those whose slot is spent can only join (or be dropped): several at once.
  const rest: IncidentCandidate[] = [];
  for (const c of ordered) {
    if (run.spent(c)) rest.push(c);
    else await take(c);
  }
  await mapBounded(rest, JOINS_AT_ONCE, take);
  return out;
}

/**
 * The order a delivery takes candidates in: higher ranks first (a forged tenant flood never takes a
 * kubelet's or CloudTrail's slot); within a rank most lines first; tenant candidates in turns of their
 * namespaces (one namespace's flood never pushes out another's one real failure).
 */
export function deliveryOrder(candidates: readonly IncidentCandidate[]): IncidentCandidate[] {
  const byCount = [...candidates].sort((a, b) => b.count - a.count || a.firstSeen - b.firstSeen);
  const turn = new Map<IncidentCandidate, number>();
  const seen = new Map<string, number>();
  for (const c of byCount) {
    const ns = candidateRank(c) === 'tenant' ? (c.tenantNamespace ?? '-') : '';
    const n = seen.get(ns) ?? 0;
    seen.set(ns, n + 1);
    turn.set(c, candidateRank(c) === 'tenant' ? n : 0);
  }
  return byCount
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) =>
        rankOrder(candidateRank(a.c)) - rankOrder(candidateRank(b.c)) ||
        (turn.get(a.c) ?? 0) - (turn.get(b.c) ?? 0) ||
        a.i - b.i,
    )
    .map((x) => x.c);
}

/** The budget a candidate spends: its rank's, its fleet account's, and for tenant rank its namespace's. */
export function budgetScope(c: IncidentCandidate): BudgetScope {
  const rank = candidateRank(c);
  return {
    cluster: c.cluster,
    rank,
    ...(c.account ? { account: c.account } : {}),
    ...(rank === 'tenant' ? { namespace: c.tenantNamespace ?? '-' } : {}),
  };
}

/** Joins in flight at once once the delivery's limits are spent (a flood of distinct candidates). */
const JOINS_AT_ONCE = 16;

function unrecordable(candidate: IncidentCandidate, e: Error): Reject {
  return {
    reason: `incident could not be recorded or started: ${e.name}: ${e.message}`.slice(0, 2000),
    record: JSON.stringify({ key: candidate.key, class: candidate.class, samples: candidate.samples }).slice(0, 16_384),
  };
}

/** One delivery's candidates against the limits: what it opened, joined, started and dropped, per rank. */
class DeliveryRun {
  /** Opened and started per delivery slot: a rank's, and for tenant rank a namespace's. */
  private readonly opened = new Map<string, number>();
  private readonly starts = new Map<string, number>();
  private readonly limits: IngestLimits;

  constructor(
    private readonly deps: OpenIncidentDeps,
    private readonly out: OpenedIncidents,
    private readonly now: number,
  ) {
    this.limits = deps.limits ?? DEFAULT_INGEST_LIMITS;
  }

  /** Nothing more can be opened or started in the candidate's slot by this delivery: it can only join. */
  spent(c: IncidentCandidate): boolean {
    const max = this.limits.maxIncidentsPerDelivery;
    const slot = deliverySlot(c);
    return (this.opened.get(slot) ?? 0) >= max && (this.starts.get(slot) ?? 0) >= max;
  }

  private bump(counts: Map<string, number>, c: IncidentCandidate, by: number): void {
    counts.set(deliverySlot(c), (counts.get(deliverySlot(c)) ?? 0) + by);
  }

  async take(c: IncidentCandidate): Promise<void> {
    // A tenant-rank signal no higher-rank fact backs opens, joins and starts nothing: kept and counted.
    if (candidateRank(c) === 'tenant' && !c.corroboratedBy) return void this.drop(c, 'uncorroborated');
    const joined = await this.deps.incidents.join(c);
    const incident = joined ?? (await this.open(c));
    if (!incident) return;
    (incident.opened ? this.out.opened : this.out.joined).push(incident.incidentId);
    if (incident.opened) this.out.openedByClass[c.class] = (this.out.openedByClass[c.class] ?? 0) + 1;
    if (!this.deps.workflow) return;
    const ask = {
      rank: candidateRank(c),
      corroborated: Boolean(c.corroboratedBy) || c.rank !== 'tenant',
      kind: c.kind,
    };
    if (!incident.workflowStarted) await this.startFirst(c, incident);
    else if (reevaluationDue(incident, this.limits, this.now, ask)) await this.reevaluate(c, incident);
  }

  /** Opens the candidate's incident within the delivery's and its rank's hourly limits. */
  private async open(c: IncidentCandidate): Promise<OpenIncident | undefined> {
    if ((this.opened.get(deliverySlot(c)) ?? 0) >= this.limits.maxIncidentsPerDelivery) return this.drop(c, 'delivery');
    const budget = this.deps.budget;
    if (budget && !(await budget.take(budgetScope(c), 'incidents', this.now)))
      return this.drop(c, `${hourLimit(c)} incidents`);
    const incident = await this.deps.incidents.open(c, this.now);
    // Another invocation opened it meanwhile: joined, and the incident slot goes back.
    if (!incident.opened && budget) await budget.giveBack(budgetScope(c), 'incidents', this.now);
    if (incident.opened) this.bump(this.opened, c, 1);
    return incident;
  }

  private drop(c: IncidentCandidate, limit: string, to = this.out.dropped): undefined {
    const rank = candidateRank(c);
    to.push({
      cluster: c.cluster,
      class: c.class,
      key: c.key,
      count: c.count,
      limit,
      samples: c.samples,
      rank,
      ...(rank === 'tenant' ? { namespace: c.tenantNamespace ?? '-' } : {}),
    });
    return undefined;
  }

  /** An execution slot of the delivery and of the rank's hour; undefined (and deferred) when none is left. */
  private async slot(c: IncidentCandidate): Promise<boolean> {
    if ((this.starts.get(deliverySlot(c)) ?? 0) >= this.limits.maxIncidentsPerDelivery) {
      this.drop(c, 'delivery', this.out.deferred);
      return false;
    }
    if (this.deps.budget && !(await this.deps.budget.take(budgetScope(c), 'executions', this.now))) {
      this.drop(c, `${hourLimit(c)} executions`, this.out.deferred);
      return false;
    }
    this.bump(this.starts, c, 1);
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
    this.bump(this.starts, c, -1);
    await this.deps.budget?.giveBack(budgetScope(c), 'executions', this.now);
  }

  /** A new evaluation of an incident whose last run verified no repair: claimed once, however many race. */
  private async reevaluate(c: IncidentCandidate, incident: OpenIncident): Promise<void> {
    if (!this.deps.workflow || !(await this.slot(c))) return;
    if (!(await this.deps.incidents.claimReevaluation(c.key, incident.runs, this.now, candidateRank(c))))
      return this.giveBack(c);
    const evaluation = incident.runs + 1;
    const name = evaluationName(incident.incidentId, evaluation);
    const input = boundedInput(reevaluationInput(incident.workflowInput, c, evaluation));
    const arn = await this.deps.workflow.start(name, input);
    await this.deps.incidents.markReevaluationStarted(c.key, arn);
    this.out.started.push(name);
    this.out.reevaluated.push(name);
  }
}

/** A delivery's slot of a candidate: its rank's, and for tenant rank its namespace's (one tenant's flood never takes another's). */
function deliverySlot(c: IncidentCandidate): string {
  const rank = candidateRank(c);
  return rank === 'tenant' ? `tenant/${c.tenantNamespace ?? '-'}` : rank;
}

/** The hourly limit's name in what was dropped: the cluster's (node rank), or the rank's. */
function hourLimit(c: IncidentCandidate): string {
  const rank = candidateRank(c);
  if (rank === 'tenant') return `tenant namespace-hour (${c.tenantNamespace ?? '-'})`;
  return rank === 'aws' ? 'aws cluster-hour' : 'cluster-hour';
}

/** Errors no retry can fix: the request itself is invalid (sizes, names, input). */
const DATA_ERRORS = new Set(['ValidationException', 'InvalidExecutionInput', 'InvalidName', 'RangeError']);

export function isDataError(e: unknown): boolean {
  return e instanceof Error && DATA_ERRORS.has(e.name);
}
