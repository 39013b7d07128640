import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type EvictionOutcome,
  type EvictionResult,
  type EvictPlan,
  evictionOutcome,
  type ReplacementResult,
} from '../../core/evict-after-repair.js';
import type { ActionRecord, ApprovalRecord } from '../../core/summary.js';
import { blockedReason } from './act-gate.js';
import { type Reservation, releaseReservation } from './reservations.js';

type Caught = { readonly Error?: string; readonly Cause?: string };

/** What the eviction states leave in the workflow state (evict-states.ts). */
export interface EvictState {
  readonly plan?: { readonly evict?: EvictPlan | null };
  /** The repair's verification: node healthy, pods still stuck. */
  readonly verification?: { readonly podsStillStuck?: boolean };
  /** The repair's watch of the stuck pods. */
  readonly podSignal?: { readonly verdict?: { readonly stillStuck?: readonly string[] } };
  readonly evictApproval?: ApprovalRecord;
  /** "Evict: gate" refused (ActBlockedError). */
  readonly evictBlocked?: Caught;
  readonly evictGate?: { readonly sentAt?: string; readonly gate?: { readonly reservation?: Reservation } };
  readonly evictResult?: { readonly evictions?: EvictionResult };
  readonly evictError?: Caught;
  readonly replacements?: { readonly verdict?: ReplacementResult };
  readonly replacementsError?: Caught;
}

const errorOf = (e: Caught | undefined) => (e ? `${e.Error ?? 'error'}` : undefined);

/** The eviction's part of the incident, or undefined when the repair left no pod stuck on a healthy node. */
export function evictOf(s: EvictState): EvictionOutcome | undefined {
  return evictionOutcome({
    plan: s.plan?.evict,
    podsStillStuck: s.verification?.podsStillStuck,
    approval: s.evictApproval,
    blocked: s.evictBlocked ? blockedReason(s.evictBlocked) : undefined,
    result: s.evictResult?.evictions,
    replacements: s.replacements?.verdict,
    error: errorOf(s.evictError) ?? errorOf(s.replacementsError),
    stuck: s.podSignal?.verdict?.stillStuck ?? [],
  });
}

/**
 * The incident outcome with the eviction: when the re-created pods run, the repair is verified by
 * them; otherwise the eviction is appended and its next step replaces the repair's.
 */
export function withEviction<T extends { outcome: string; nextStep: string }>(
  base: T,
  e: EvictionOutcome | undefined,
): T {
  if (!e) return base;
  if (e.verified)
    return { ...base, outcome: `repaired and verified after eviction: ${e.outcome}`, nextStep: e.nextStep };
  return { ...base, outcome: `${base.outcome}; ${e.outcome}`, nextStep: e.nextStep };
}

/** The eviction as an action of the summary (what was evicted, skipped and why, the new pods), with who approved it. */
export function evictAction(s: EvictState, e: EvictionOutcome): ActionRecord {
  const a = s.evictApproval;
  const by =
    a?.approved && a.decidedAt
      ? ` (approved at ${a.decidedAt}${a.decidedBy?.sourceIp ? ` from ${a.decidedBy.sourceIp}` : ''})`
      : '';
  return {
    id: 'evict-stuck-pods',
    status: `${e.status}${by}`,
    outputExcerpt: e.outcome.slice(0, 500),
    detail: e.detail,
    evidence: { evictions: s.evictResult?.evictions ?? null, replacements: s.replacements?.verdict ?? null },
  };
}

/**
 * What the gate reserved for the eviction: kept when a pod was evicted, given back otherwise.
 * Returns when the eviction acted (for the cap's action row), or undefined.
 */
export async function settleEviction(
  s: EvictState,
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<string | undefined> {
  const reservation = s.evictGate?.gate?.reservation;
  if (!reservation) return undefined;
  if ((s.evictResult?.evictions?.evicted.length ?? 0) > 0) return s.evictGate?.sentAt ?? new Date().toISOString();
  await releaseReservation(reservation, deps);
  return undefined;
}
