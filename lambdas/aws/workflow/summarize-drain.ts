import { type DrainOutcome, drainOutcome } from '../../core/door/drain.js';
import type { ActionRecord } from '../../core/voices/summary.js';
import { approvalOf, approvedBy, blockedOf, doorErrorOf, resultOf, type SummarizeInput } from './summarize-results.js';

/** The runtime restart was the node action verified (the drain only follows a failed one). */
const restartRan = (s: SummarizeInput) =>
  [s.plan?.requests.act, s.plan?.requests.followUp].some((r) => r?.action.kind === 'restart-runtime');

/** The drain's part of the incident, or undefined when no restart failed with a drain planned. */
export function drainOf(s: SummarizeInput): DrainOutcome | undefined {
  if (!restartRan(s)) return undefined;
  const r = resultOf(s, 'drain');
  return drainOutcome({
    plan: s.plan?.drain,
    restartVerified: s.verification?.verified,
    approval: approvalOf(r),
    blocked: blockedOf(r),
    result: r?.drain,
    error: doorErrorOf(r),
    node: s.node?.privateDnsName ?? s.node?.instanceId ?? '<node>',
  });
}

/** The incident outcome with the drain appended; the drain's next step replaces the restart's. */
export function withDrain<T extends { outcome: string; nextStep: string }>(base: T, d: DrainOutcome | undefined): T {
  return d ? { ...base, outcome: `${base.outcome}; ${d.outcome}`, nextStep: d.nextStep } : base;
}

/** The drain as an action of the summary, with who approved it. */
export function drainAction(s: SummarizeInput, d: DrainOutcome): ActionRecord {
  const r = resultOf(s, 'drain');
  const by = approvedBy(r);
  return {
    id: 'drain-node',
    status: `${d.status}${by}`,
    outputExcerpt: d.outcome.slice(0, 500),
    detail: d.detail,
    evidence: { drain: r?.drain ?? null, replacement: s.plan?.drain?.replacement ?? null },
  };
}
