import type { ApplyRecord } from '../../core/remedy/apply-path.js';
import type { LabelledApproval } from '../../core/voices/summary.js';
import type { DoorResult } from '../../core/workflow/execution-state.js';
import {
  approvalOf,
  nodeActions,
  openRecommendationsOf,
  remedies,
  resultOf,
  type SummarizeInput,
} from './summarize-results.js';

type Outcome = { outcome: string; nextStep: string; actionStatus?: string };

/**
 * Every approval answer of the execution, in the order asked, with what it answered: the remedy and
 * its follow-up, the node action and its follow-up, the eviction, the drain.
 */
export function approvalsOf(s: SummarizeInput): LabelledApproval[] {
  const slots = ['remedy', 'remedyFollowUp', 'act', 'followUp', 'evict', 'drain'] as const;
  return slots.flatMap((slot) => {
    const r = resultOf(s, slot);
    const a = approvalOf(r);
    return r && a ? [{ for: r.kind, ...a }] : [];
  });
}

/** The remedy's record changed something (applied, verified or rolled back) or failed while changing. */
function applied(r: ApplyRecord): boolean {
  return r.applied !== null || /^the change failed/.test(r.reason);
}

/** The outcome of the remedy, when it decides the incident's outcome on its own. */
function remedyOutcome(s: SummarizeInput, r: DoorResult | undefined): Outcome | undefined {
  const rec = r?.record;
  if (!r || r.outcome === 'not-approved') return undefined;
  const hand = openRecommendationsOf(s)[0] ?? 'handle the incident by hand';
  if (!rec)
    return r.outcome === 'refused'
      ? { outcome: `${r.kind} not run: blocked right before acting: ${r.reason}`, nextStep: hand }
      : { outcome: `${r.kind} failed: ${r.reason}`, nextStep: 'read the reason below; make the change by hand' };
  if (applied(rec) && ['rolled-back', 'rollback-failed', 'failed'].includes(rec.status))
    return {
      outcome: `${rec.remedy} ${rec.status}: ${rec.reason}`,
      nextStep:
        rec.status !== 'rollback-failed'
          ? 'read the verification below and fix the cause by hand'
          : /IrreversibleActionError/.test(rec.reason)
            ? 'nothing to undo; read the verification below and fix the cause by hand'
            : `undo by hand: ${rec.change} (see the diff); then handle the cause`,
    };
  if (rec.status === 'not-applicable') return { outcome: `diagnosed; ${rec.reason}`, nextStep: rec.reason };
  if (rec.status === 'failed')
    return {
      outcome: `${rec.remedy} failed: ${rec.reason}`,
      nextStep: 'read the reason below; make the change by hand or fix what kept pod-doctor from it',
    };
  if (rec.status === 'dry-run' && r.outcome === 'dry-run')
    return {
      outcome: `dry run: would ${rec.change}`,
      nextStep: 'apply the change shown (or set the class remedy to approve)',
    };
  return undefined;
}

/** What became of the incident, the next step for a human, and the node action's status for the summary. */
export function outcomeOf(s: SummarizeInput): Outcome {
  const { first, current } = remedies(s);
  const r = outcomeWith(s, current);
  return first?.record ? followedUp(first.record, r) : r;
}

function outcomeWith(s: SummarizeInput, remedy: DoorResult | undefined): Outcome {
  const rec = remedy?.record;
  const fixed = rec?.status === 'verified' ? `${rec.remedy} verified` : undefined;
  const node = nodeActions(s);
  const ran = node.current !== undefined && node.current.outcome !== 'refused';
  const r = nodeOutcomeOf(s, node, approvalOf(remedy));
  const ro = remedyOutcome(s, remedy);
  const answer = approvalOf(node.current) ?? approvalOf(remedy);
  if (ro && !s.error && answer?.approved !== false) return ro;
  if (fixed && !ran && !s.error)
    return {
      // A step its verification found left for a human is part of the outcome: the incident is not over.
      outcome: `remedied and verified: ${rec?.change}${leftByHand(rec) ? `; ${LEFT_BY_HAND}: ${leftByHand(rec)}` : ''}`,
      nextStep: imagesToUse(rec) ?? 'none: pod-doctor keeps watching for a recurrence',
    };
  return fixed && ran ? { ...r, outcome: `${fixed}; ${r.outcome}` } : r;
}

/** The outcome of a remedy and its follow-up: the first, then what became of the follow-up. */
function followedUp(first: ApplyRecord, r: Outcome): Outcome {
  const both = 'remedied and verified: ';
  if (first.status === 'verified' && r.outcome.startsWith(both))
    return { ...r, outcome: `${both}${first.change}; then ${r.outcome.slice(both.length)}` };
  return { ...r, outcome: `${first.remedy} ${first.status}; ${r.outcome}` };
}

/** The phrase of an outcome that names a step the verified change still needs from a human. */
export const LEFT_BY_HAND = 'left by hand';

/**
 * What a verified remedy's verification found a human must still do, in a few words: a node role
 * that may not pull through the new cache yet (the permission is in the next step).
 */
function leftByHand(rec: ApplyRecord | undefined): string | undefined {
  return typeof rec?.verification?.evidence?.nodeRolePermission === 'string'
    ? 'the node role may not pull through the cache yet (see the next step)'
    : undefined;
}

/**
 * The next step a verified remedy names: the exact image references a pull-through cache rule
 * serves, or the follow-up its verification asks for (e.g. maxPods after the move to secondary IPs).
 */
function imagesToUse(rec: ApplyRecord | undefined): string | undefined {
  const evidence = rec?.verification?.evidence;
  const images = Array.isArray(evidence?.images) ? evidence.images.filter((x) => typeof x === 'string') : [];
  const permission = typeof evidence?.nodeRolePermission === 'string' ? `${evidence.nodeRolePermission}; then ` : '';
  if (images.length) return `${permission}point the workloads at the cache: ${images.join(', ')}`;
  return typeof evidence?.nextStep === 'string' ? evidence.nextStep : undefined;
}

/** With a follow-up: what the first action did, then what became of the follow-up. */
function nodeOutcomeOf(
  s: SummarizeInput,
  n: ReturnType<typeof nodeActions>,
  remedyAnswer: ReturnType<typeof approvalOf>,
): Outcome {
  const r = singleOutcomeOf(s, n.current, remedyAnswer);
  if (!n.first) return r;
  const followUp = n.current?.kind ?? s.plan?.requests.followUp?.action.kind ?? 'follow-up';
  const notRun = /^no action: /.test(r.outcome)
    ? `${followUp} not run: ${r.outcome.slice('no action: '.length)}`
    : undefined;
  return { ...r, outcome: `${n.first.kind} done; ${notRun ?? `${followUp}: ${r.outcome}`}` };
}

function singleOutcomeOf(s: SummarizeInput, r: DoorResult | undefined, remedyAnswer: ReturnType<typeof approvalOf>) {
  // The first step still open: what this run did and verified is not recommended again.
  const rec = openRecommendationsOf(s)[0];
  if (s.error)
    return { outcome: 'workflow failed', nextStep: 'open the execution below; the incident was not handled' };
  const answer = approvalOf(r) ?? remedyAnswer;
  if (answer?.approved === false)
    return { outcome: `no action: ${answer.reason ?? 'rejected'}`, nextStep: rec ?? 'handle the incident by hand' };
  if (r?.outcome === 'refused')
    return {
      outcome: `no action: blocked right before acting: ${r.reason}`,
      nextStep: rec ?? 'handle the incident by hand',
      actionStatus: 'blocked',
    };
  if (r && (r.outcome === 'failed' || r.command?.status === 'NotManaged')) return notSent(r);
  if (r?.command) return commandOutcome(s, r, rec);
  if (s.plan?.decision === 'blocked')
    return { outcome: 'diagnosed; action blocked by safety policy', nextStep: rec ?? 'see SAFETY below' };
  return { outcome: 'diagnosed; action recommended', nextStep: rec ?? 'see the checks below' };
}

/** The command could not be sent (the node not managed by SSM, SendCommand refused, the door failed). */
function notSent(r: DoorResult): Outcome {
  const notManaged = r.command?.status === 'NotManaged';
  return {
    outcome: notManaged
      ? 'no action: node not reachable through SSM'
      : `action not sent: ${r.command?.status ?? r.reason}`,
    nextStep: notManaged
      ? 'register the node with SSM (agent + AmazonSSMManagedInstanceCore) or repair by hand'
      : 'open the execution below',
    actionStatus: 'not-sent',
  };
}

/** A command that ran: its final status, and the verification of a repair. */
function commandOutcome(s: SummarizeInput, r: DoorResult, rec: string | undefined): Outcome {
  const st = r.command?.status ?? 'unknown';
  if (st !== 'Success')
    return {
      outcome: `action ${st === 'PollTimeout' ? 'timed out' : `failed (${st})`}`,
      nextStep: 'read the command output below; repair by hand or replace the node',
      actionStatus: st,
    };
  const v = s.verification;
  if (v)
    return v.verified
      ? { outcome: 'repaired and verified', nextStep: v.nextStep, actionStatus: 'Success' }
      : { outcome: `repaired, verification failed: ${v.reason}`, nextStep: v.nextStep, actionStatus: 'Success' };
  return { outcome: `${r.kind} done`, nextStep: rec ?? 'none', actionStatus: 'Success' };
}
