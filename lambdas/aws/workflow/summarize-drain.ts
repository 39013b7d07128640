import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type DrainOutcome, type DrainPlan, type DrainResult, drainOutcome } from '../../core/drain.js';
import type { ActionRecord, ApprovalRecord } from '../../core/summary.js';
import { blockedReason } from './act-gate.js';
import { type Reservation, releaseReservation } from './reservations.js';

/** What the drain states leave in the workflow state (drain-states.ts). */
export interface DrainState {
  readonly plan?: { readonly drain?: DrainPlan | null; readonly nodeAction?: { readonly id: string } | null };
  readonly node?: { readonly instanceId?: string; readonly privateDnsName?: string };
  /** The verification of the last node action (the drain follows a failed runtime restart). */
  readonly verification?: { readonly verified?: boolean };
  readonly drainApproval?: ApprovalRecord;
  /** "Drain: gate" refused (ActBlockedError). */
  readonly drainBlocked?: { readonly Error?: string; readonly Cause?: string };
  readonly drainGate?: { readonly sentAt?: string; readonly gate?: { readonly reservation?: Reservation } };
  readonly drainResult?: { readonly drain?: DrainResult };
  readonly drainError?: { readonly Error?: string; readonly Cause?: string };
}

/** The drain's part of the incident, or undefined when no restart failed with a drain planned. */
export function drainOf(s: DrainState): DrainOutcome | undefined {
  if (s.plan?.nodeAction?.id !== 'restart-runtime') return undefined;
  return drainOutcome({
    plan: s.plan?.drain,
    restartVerified: s.verification?.verified,
    approval: s.drainApproval,
    blocked: s.drainBlocked ? blockedReason(s.drainBlocked) : undefined,
    result: s.drainResult?.drain,
    error: s.drainError ? (s.drainError.Error ?? 'error') : undefined,
    node: s.node?.privateDnsName ?? s.node?.instanceId ?? '<node>',
  });
}

/** The incident outcome with the drain appended; the drain's next step replaces the restart's. */
export function withDrain<T extends { outcome: string; nextStep: string }>(base: T, d: DrainOutcome | undefined): T {
  return d ? { ...base, outcome: `${base.outcome}; ${d.outcome}`, nextStep: d.nextStep } : base;
}

/** The drain as an action of the summary, with who approved it. */
export function drainAction(s: DrainState, d: DrainOutcome): ActionRecord {
  const a = s.drainApproval;
  const by =
    a?.approved && a.decidedAt
      ? ` (approved at ${a.decidedAt}${a.decidedBy?.sourceIp ? ` from ${a.decidedBy.sourceIp}` : ''})`
      : '';
  return {
    id: 'drain-node',
    status: `${d.status}${by}`,
    outputExcerpt: d.outcome.slice(0, 500),
    detail: d.detail,
    evidence: { drain: s.drainResult?.drain ?? null, replacement: s.plan?.drain?.replacement ?? null },
  };
}

/**
 * What the gate reserved for the drain: kept (cap and cooldown spent) when the drain acted on the
 * node, given back when it never reached the cluster or left the node to whoever had cordoned it.
 * Returns when the drain acted (for the action row), or undefined.
 */
export async function settleDrain(
  s: DrainState,
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<string | undefined> {
  const reservation = s.drainGate?.gate?.reservation;
  if (!reservation) return undefined;
  const drain = s.drainResult?.drain;
  if (drain && !drain.leftToOthers) return s.drainGate?.sentAt ?? new Date().toISOString();
  await releaseReservation(reservation, deps);
  return undefined;
}
