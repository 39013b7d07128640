import { createHash } from 'node:crypto';

/**
 * An incident notice: what pod-doctor tells a chat channel or a pager about one incident, built from
 * what the workflow already stored (the history row and summary of a run, the row of a pending
 * approval). The same notice feeds every channel (chat-card.ts, paging.ts); the channels only format it.
 */

/**
 * What the notice means for a human:
 * - `approval-pending`: an action waits for an approval (the e-mail carries the signed link);
 * - `needs-human`: the run ended without a fix and someone has to act (verification failed, an action
 *   or the workflow failed, a change rolled back, blocked right before acting, no answer to an approval);
 * - `verified`: a repair or remedy was verified;
 * - `closed`: a human answered (rejected), nothing left to page about;
 * - `informational`: diagnosed and recommended (observe mode, dry run), no page.
 */
export const NOTICE_KINDS = ['approval-pending', 'needs-human', 'verified', 'closed', 'informational'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

/** The `source` and `detail-type` of a notice event on the notices bus (the channels' rules match them). */
export const NOTICE_SOURCE = 'pod-doctor';
export const NOTICE_DETAIL_TYPE = 'pod-doctor incident notice';

/** What a pager does with a notice of each kind: open (or update) the incident's alert, resolve it, or nothing. */
export const PAGING_ACTION: Readonly<Record<NoticeKind, 'trigger' | 'resolve' | null>> = {
  'approval-pending': 'trigger',
  'needs-human': 'trigger',
  verified: 'resolve',
  closed: 'resolve',
  informational: null,
};

/** A link a human can follow (never the signed approval link: it stays in the e-mail). */
export interface NoticeLink {
  readonly label: string;
  readonly url: string;
}

export interface IncidentNotice {
  readonly kind: NoticeKind;
  readonly incidentId: string;
  /** Failure class id (a contract, DESIGN.md §1). */
  readonly class: string;
  readonly cluster: string;
  /** The node, subnet or image the incident is about. */
  readonly where: string;
  /** One line: the outcome, or what waits for approval. */
  readonly headline: string;
  /** The cause in one sentence, with the first failing check. */
  readonly cause: string;
  /** What an approval asks for (approval-pending only): the action and its plan, apart from the cause. */
  readonly ask?: string;
  /** Log lines and events that show the failure (tenant text: escaped by every channel). */
  readonly evidence: readonly string[];
  /** Checks that did not pass, `STATUS id: summary`. */
  readonly findings: readonly string[];
  /** Actions and their outcome, `id: status`. */
  readonly actions: readonly string[];
  readonly nextSteps: readonly string[];
  readonly links: readonly NoticeLink[];
  /** When the notice was made (ISO 8601). */
  readonly at: string;
}

/**
 * One incident, one alert and one chat thread: the key a pager deduplicates on and chat threads by.
 * URL-path safe (Opsgenie closes by it in the path); an id that is not is hashed.
 */
export function dedupKey(incidentId: string): string {
  const id = /^[A-Za-z0-9._-]{1,200}$/.test(incidentId)
    ? incidentId
    : createHash('sha256').update(incidentId).digest('hex').slice(0, 32);
  return `pod-doctor-${id}`;
}

/**
 * The phrases of an outcome (summarize-outcome.ts): its parts (`a; b`, `a; then b`) and what each
 * says before and after a colon (`collect-logs done; restart-runtime: repaired and verified`).
 */
function phrases(outcome: string): string[] {
  return outcome
    .split(/; (?:then )?|: /)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/**
 * Phrases pod-doctor writes when a run leaves the incident to a human. Text after a colon may come
 * from a log or an API error: it can only make a notice more urgent, never less (needs-human is
 * decided first, so no reason text can turn a failure into "verified").
 */
const NEEDS_HUMAN = [
  /^workflow failed$/,
  /verification failed$/,
  /^action (failed|timed out|not sent)\b/,
  /\S (rolled-back|rollback-failed|failed)$/,
  /^(blocked right before acting|node not reachable through SSM|no answer before the approval deadline)$/,
  // A shared cause (the breaker) or the kill switch: pod-doctor stood back, a human decides.
  /^action blocked by safety policy$/,
  // A verified change that still needs a human's step (summarize-outcome.ts LEFT_BY_HAND).
  /^left by hand$/,
];

/**
 * Did a verification fail in this run (a repair not verified, a change rolled back because its
 * verification failed)? The operations dashboard alarms on these.
 */
export function verificationFailed(outcome: string): boolean {
  return phrases(outcome).some((p) => /verification failed$|\S (rolled-back|rollback-failed)$/.test(p));
}

/**
 * Classes whose remedy is an escalation (DESIGN.md §1): the VPC resource controller's credentials
 * (an AWS Support case), a container runtime that fails to start sandboxes (logs collected, then a
 * human). Diagnosed without a fix, they need a human as much as a failed repair does.
 */
export const ESCALATION_CLASSES: readonly string[] = ['branch-eni', 'runtime-failure'];

/** The kind of the notice of a finished run, from its outcome (the history row's `outcome`) and class. */
export function runNoticeKind(outcome: string, cls = ''): Exclude<NoticeKind, 'approval-pending'> {
  const kind = outcomeKind(outcome);
  return kind === 'informational' && ESCALATION_CLASSES.includes(cls) ? 'needs-human' : kind;
}

function outcomeKind(outcome: string): Exclude<NoticeKind, 'approval-pending'> {
  const all = phrases(outcome);
  if (all.some((p) => NEEDS_HUMAN.some((re) => re.test(p)))) return 'needs-human';
  // Rejected by the approver: a human already decided what happens next (even after a verified remedy).
  if (all.some((p) => p === 'no action' || /\S not run$/.test(p))) return 'closed';
  if (all.some((p) => /\bverified$/.test(p))) return 'verified';
  return 'informational';
}
