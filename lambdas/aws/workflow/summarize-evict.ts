import { type EvictionOutcome, evictionOutcome } from '../../core/door/evict-after-repair.js';
import type { ActionRecord } from '../../core/voices/summary.js';
import { approvalOf, approvedBy, blockedOf, doorErrorOf, resultOf, type SummarizeInput } from './summarize-results.js';

/** The eviction's part of the incident, or undefined when the repair left no pod stuck on a healthy node. */
export function evictOf(s: SummarizeInput): EvictionOutcome | undefined {
  const r = resultOf(s, 'evict');
  const replacementsError = s.replacementsError ? (s.replacementsError.Error ?? 'error') : undefined;
  return evictionOutcome({
    plan: s.plan?.evict,
    podsStillStuck: s.verification?.podsStillStuck,
    approval: approvalOf(r),
    blocked: blockedOf(r),
    result: r?.evictions,
    replacements: s.replacements?.verdict,
    error: doorErrorOf(r) ?? replacementsError,
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
export function evictAction(s: SummarizeInput, e: EvictionOutcome): ActionRecord {
  const r = resultOf(s, 'evict');
  const by = approvedBy(r);
  return {
    id: 'evict-stuck-pods',
    status: `${e.status}${by}`,
    outputExcerpt: e.outcome.slice(0, 500),
    detail: e.detail,
    evidence: { evictions: r?.evictions ?? null, replacements: s.replacements?.verdict ?? null },
  };
}
