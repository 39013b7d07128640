import type { IncidentCandidate } from './incidents.js';
import type { IngestLimits } from './ingest-limits.js';
import type { Rank } from './provenance.js';

/**
 * What an execution left: `verified` (a repair or remedy whose verification passed on evidence the node
 * or account owns), `acted` (something changed, not verified), `not-acted` (diagnosed or refused only).
 */
export type RunResult = 'verified' | 'acted' | 'not-acted';

/** The evaluations of one open incident, as its row keeps them. */
export interface IncidentRuns {
  /** Executions started (or claimed) for the incident. */
  readonly runs: number;
  /** Executions that reached Summarize. */
  readonly closedRuns: number;
  /** When the last execution was started (epoch ms; 0 when unknown). */
  readonly startedAt: number;
  /** What the last execution that reached Summarize left. */
  readonly lastResult?: RunResult;
  /**
   * Re-evaluations each rank's signals started (absent: a row from before ranks, whose re-evaluations
   * all count as the node rank's). A rank spends only its own.
   */
  readonly reevaluations?: Readonly<Partial<Record<Rank, number>>>;
}

/** What asks for a re-evaluation: the rank of its signals, whether a tenant one is corroborated, its kind. */
export interface ReevaluationAsk {
  readonly rank: Rank;
  readonly corroborated: boolean;
  readonly kind: 'failure' | 'change';
}

/** The re-evaluations `rank` has started on the incident. */
export function reevaluationsOf(row: IncidentRuns, rank: Rank): number {
  const r = row.reevaluations;
  if (r && Object.keys(r).length > 0) return r[rank] ?? 0;
  return rank === 'node' ? Math.max(0, row.runs - 1) : 0;
}

/** An execution that never reached Summarize in this long (a stop at the lock, a crash) counts as ended. */
export const RUN_STALE_MS = 6 * 3_600_000;

/**
 * Whether new lines for an open incident start its evaluation again. One forged line, or one refused
 * call by any principal, opens an incident whose execution finds nothing to do; the real failure's
 * lines then only join it. So: when the last execution ended without a verified repair, and the
 * incident was not re-evaluated too often (by signals of this rank: each rank has its own count, so
 * forged tenant signals never spend the node's or AWS's) or too recently, the new lines are evaluated
 * again. While an execution runs, or after a verified repair, they only join; an AWS-rank breaking
 * change is evaluated whenever the last run ended; an uncorroborated tenant signal never re-evaluates.
 */
export function reevaluationDue(
  row: IncidentRuns & { readonly workflowStarted: boolean },
  limits: Pick<IngestLimits, 'maxReevaluationsPerIncident' | 'reevaluateAfterMinutes'>,
  now: number,
  ask: ReevaluationAsk = { rank: 'node', corroborated: true, kind: 'failure' },
): boolean {
  if (!row.workflowStarted || row.runs < 1) return false;
  const ended = row.closedRuns >= row.runs || now - row.startedAt > RUN_STALE_MS;
  if (!ended) return false;
  // A tenant-rank signal nothing corroborated never starts anything.
  if (ask.rank === 'tenant' && !ask.corroborated) return false;
  // An AWS-rank breaking change (CloudTrail wrote it) is a new fact: always evaluated once the last run ended.
  if (ask.rank === 'aws' && ask.kind === 'change') return true;
  return (
    row.lastResult !== 'verified' &&
    reevaluationsOf(row, ask.rank) < limits.maxReevaluationsPerIncident &&
    now - row.startedAt >= limits.reevaluateAfterMinutes * 60_000
  );
}

/**
 * The input of a re-evaluation: the incident as it opened (id, key, class, scope, entities, pods), with
 * the lines that asked for it as its evidence, and the evaluation's number.
 */
export function reevaluationInput(
  opened: string,
  c: Pick<IncidentCandidate, 'samples'>,
  evaluation: number,
): Record<string, unknown> & { samples: readonly string[]; pods: readonly string[] } {
  const input = JSON.parse(opened) as Record<string, unknown> & { pods?: readonly string[] };
  // The pods stay those the incident named when it opened: verification judges only them (never pods a
  // later signal named, which whoever wrote it chose).
  return { ...input, samples: c.samples, pods: input.pods ?? [], evaluation };
}

/** The execution name of an incident's evaluation: the incident id, then `-e<n>` for the re-evaluations. */
export function evaluationName(incidentId: string, evaluation: number): string {
  return evaluation <= 1 ? incidentId : `${incidentId}-e${evaluation}`;
}

/**
 * Whether `name` is an evaluation the ingest path started for the incident (its first run or a
 * re-evaluation), not a run started another way (an agent's request): only those close a run.
 */
export function isEvaluation(incidentId: string, name: string): boolean {
  if (name === incidentId) return true;
  const rest = name.startsWith(`${incidentId}-e`) ? name.slice(incidentId.length + 2) : '';
  return /^[0-9]+$/.test(rest);
}
