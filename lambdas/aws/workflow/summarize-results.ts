import type { Slot } from '../../core/door/action-request.js';
import { KIND_RULES } from '../../core/door/gate.js';
import type { RunResult } from '../../core/incident/reevaluation.js';
import { openRecommendations } from '../../core/voices/next-steps.js';
import type { ApprovalRecord } from '../../core/voices/summary.js';
import type { DoorResult, ExecutionState } from '../../core/workflow/execution-state.js';

/** The execution state Summarize reads. */
export type SummarizeInput = ExecutionState;

/**
 * What the door did for a slot: its result, or — when the door's function itself failed on that
 * call (the Catch of its Task) — a failed result naming the error. Undefined: the slot was not called.
 */
export function resultOf(s: SummarizeInput, slot: Slot): DoorResult | undefined {
  const done = s.door?.done?.[slot];
  if (done) return done;
  if (s.door?.call?.slot !== slot || !s.door.error) return undefined;
  const request = s.door.call.request;
  return {
    slot,
    kind: request.action.kind,
    line: request.action.kind,
    digest: '',
    outcome: 'failed',
    reason: `the door failed (${s.door.error.Error ?? 'error'})`,
    at: '',
  };
}

/** The answer the door got for a slot, as the summary shows it. */
export function approvalOf(r: DoorResult | undefined): ApprovalRecord | undefined {
  if (r?.approval) return r.approval;
  return r?.outcome === 'not-approved' ? { approved: false, reason: r.reason } : undefined;
}

/** Who approved a slot's action, as a status suffix: " (approved at <time> from <address>)", or "". */
export function approvedBy(r: DoorResult | undefined): string {
  const a = r?.approval;
  if (!a?.approved || !a.decidedAt) return '';
  return ` (approved at ${a.decidedAt}${a.decidedBy?.sourceIp ? ` from ${a.decidedBy.sourceIp}` : ''})`;
}

/** Why the door refused a slot right before acting (not a rejection: those are answers). */
export function blockedOf(r: DoorResult | undefined): string | undefined {
  return r?.outcome === 'refused' ? r.reason : undefined;
}

/** The door's function failed on the slot (no result of its own). */
export function doorErrorOf(r: DoorResult | undefined): string | undefined {
  return r?.outcome === 'failed' && !r.command && !r.record ? r.reason : undefined;
}

/** The node action that ran first and the one that followed it (PID exhaustion: logs, then the restart). */
export function nodeActions(s: SummarizeInput): { readonly first?: DoorResult; readonly current?: DoorResult } {
  const act = resultOf(s, 'act');
  const followUp = resultOf(s, 'followUp');
  const followed = s.plan?.requests.followUp !== undefined && act?.command?.status === 'Success';
  return followed ? { first: act, current: followUp } : { current: act };
}

/** The remedy that ran first and its follow-up (CNI permissions: the policy, then the aws-node restart). */
export function remedies(s: SummarizeInput): { readonly first?: DoorResult; readonly current?: DoorResult } {
  const remedy = resultOf(s, 'remedy');
  const followUp = resultOf(s, 'remedyFollowUp');
  return followUp ? { first: remedy, current: followUp } : { current: remedy };
}

/**
 * What the run left, for the incident's next lines (lambdas/core/incident/reevaluation.ts): `verified` when a
 * repair's or a remedy's own verification passed (the node's probe and the pods that started; the
 * remedy's re-read of what it changed), `acted` when the door changed something without that,
 * `not-acted` when it changed nothing.
 */
export function runResultOf(s: SummarizeInput): RunResult {
  const results = Object.values(s.door?.done ?? {});
  const remedyVerified = results.some((r) => r.record?.status === 'verified');
  if (!s.error && (s.verification?.verified === true || remedyVerified)) return 'verified';
  const changed = (r: DoorResult) =>
    KIND_RULES[r.kind].mutating &&
    (r.outcome === 'done' || r.command?.commandId !== undefined || r.record !== undefined);
  return results.some(changed) ? 'acted' : 'not-acted';
}

/** Node actions whose success is a repair only once its verification passed (the probe and the pods). */
const VERIFIED_BY_PROBE = ['repair-pause-image', 'restart-runtime'];

/**
 * The kinds of the actions this run did and verified: a remedy whose own re-read passed, a node
 * repair whose verification passed, a node command that succeeded (collect logs). Their steps are
 * not recommended to a human again (lambdas/core/voices/next-steps.ts).
 */
export function doneKinds(s: SummarizeInput): string[] {
  if (s.error) return [];
  return Object.values(s.door?.done ?? {})
    .filter(
      (r) =>
        r.record?.status === 'verified' ||
        (r.command?.status === 'Success' && (!VERIFIED_BY_PROBE.includes(r.kind) || s.verification?.verified === true)),
    )
    .map((r) => r.kind);
}

/** The plan's recommendations still open after what this run did and verified. */
export function openRecommendationsOf(s: SummarizeInput): string[] {
  return openRecommendations(s.plan?.recommendations ?? [], s.plan?.actions ?? [], doneKinds(s));
}
