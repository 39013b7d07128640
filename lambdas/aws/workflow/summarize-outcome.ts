import type { ApplyRecord } from '../../core/remedy/apply-path.js';
import type { ApprovalRecord, LabelledApproval } from '../../core/summary.js';
import { blockedReason } from './act-gate.js';
import type { SummarizeInput } from './summarize.js';

/**
 * The last answer before the node path ended: the node action's, else the remedy's (remedies run
 * first). The eviction's and the drain's are their own (summarize-evict.ts, summarize-drain.ts).
 */
function lastAnswer(s: SummarizeInput): ApprovalRecord | undefined {
  return s.plan?.nodeAction?.approval ?? s.plan?.remedy?.approval;
}

/**
 * Every approval answer of the execution, in the order asked, with what it answered: the first
 * remedy's and its follow-up's, the first node action's and its follow-up's, the eviction's, the drain's.
 */
export function approvalsOf(s: SummarizeInput): LabelledApproval[] {
  const asked: [string | undefined, ApprovalRecord | undefined][] = [
    [s.remedyFirst?.remedy, s.remedyFirst?.plan?.approval],
    [s.plan?.remedy?.id, s.plan?.remedy?.approval],
    [s.previous?.nodeAction?.id, s.previous?.nodeAction?.approval],
    [s.plan?.nodeAction?.id, s.plan?.nodeAction?.approval],
    ['evict-stuck-pods', s.evictApproval],
    ['drain-node', s.drainApproval],
  ];
  return asked.flatMap(([id, a]) => (id && a ? [{ for: id, ...a }] : []));
}

/** The outcome of the account remedy, when it decides the incident's outcome on its own. */
function remedyOutcome(s: SummarizeInput): { outcome: string; nextStep: string } | undefined {
  const applied = s.remedyApplied;
  const prepared = s.remedyPrepared;
  if (applied) {
    if (applied.status === 'rolled-back' || applied.status === 'rollback-failed' || applied.status === 'failed')
      return {
        outcome: `${applied.remedy} ${applied.status}: ${applied.reason}`,
        nextStep:
          applied.status !== 'rollback-failed'
            ? 'read the verification below and fix the cause by hand'
            : /IrreversibleActionError/.test(applied.reason)
              ? 'nothing to undo; read the verification below and fix the cause by hand'
              : `undo by hand: ${applied.change} (see the diff); then handle the cause`,
      };
    if (applied.status === 'not-applicable')
      return { outcome: `diagnosed; ${applied.reason}`, nextStep: applied.reason };
    return undefined;
  }
  if (prepared?.status === 'failed')
    return {
      outcome: `${prepared.remedy} failed: ${prepared.reason}`,
      nextStep: 'read the reason below; make the change by hand or fix what kept pod-doctor from it',
    };
  if (prepared?.status === 'not-applicable')
    return { outcome: `diagnosed; ${prepared.reason}`, nextStep: prepared.reason };
  if (prepared?.status === 'dry-run' && s.plan?.remedy?.disposition === 'dry-run')
    return {
      outcome: `dry run: would ${prepared.change}`,
      nextStep: 'apply the change shown (or set the class remedy to approve)',
    };
  return undefined;
}

/** What became of the incident, the next step for a human, and the node action's status for the summary. */
export function outcomeOf(s: SummarizeInput): { outcome: string; nextStep: string; actionStatus?: string } {
  if (s.remedyFirst) return followedUp(s.remedyFirst, outcomeOf(followUpOnly(s)));
  const fixed = s.remedyApplied?.status === 'verified' ? `${s.remedyApplied.remedy} verified` : undefined;
  const r = nodeOutcomeOf(s);
  const remedy = remedyOutcome(s);
  if (remedy && !s.error && lastAnswer(s)?.approved !== false) return remedy;
  if (fixed && !s.action && !s.error)
    return {
      outcome: `remedied and verified: ${s.remedyApplied?.change}`,
      nextStep: imagesToUse(s) ?? 'none: pod-doctor keeps watching for a recurrence',
    };
  return fixed && s.action ? { ...r, outcome: `${fixed}; ${r.outcome}` } : r;
}

/**
 * The incident as the follow-up remedy left it: its own records only ("Apply remedy" of the first
 * remedy stays in the state until the follow-up's apply replaces it).
 */
export function followUpOnly(s: SummarizeInput): SummarizeInput {
  const current = s.remedyApplied?.remedy === s.plan?.remedy?.id ? s.remedyApplied : undefined;
  return { ...s, remedyFirst: undefined, remedyApplied: current };
}

/** The outcome of a remedy and its follow-up: the first, then what became of the follow-up. */
function followedUp(first: ApplyRecord, r: ReturnType<typeof outcomeOf>): ReturnType<typeof outcomeOf> {
  const both = 'remedied and verified: ';
  if (first.status === 'verified' && r.outcome.startsWith(both))
    return { ...r, outcome: `${both}${first.change}; then ${r.outcome.slice(both.length)}` };
  return { ...r, outcome: `${first.remedy} ${first.status}; ${r.outcome}` };
}

/**
 * The next step a verified remedy names: the exact image references a pull-through cache rule
 * serves, or the follow-up its verification asks for (e.g. maxPods after the move to secondary IPs).
 */
function imagesToUse(s: SummarizeInput): string | undefined {
  const evidence = s.remedyApplied?.verification?.evidence;
  const images = (evidence?.images ?? []) as string[];
  const permission = typeof evidence?.nodeRolePermission === 'string' ? `${evidence.nodeRolePermission}; then ` : '';
  if (images.length) return `${permission}point the workloads at the cache: ${images.join(', ')}`;
  return typeof evidence?.nextStep === 'string' ? evidence.nextStep : undefined;
}

/** With a follow-up: what the first action did, then what became of the follow-up. */
function nodeOutcomeOf(s: SummarizeInput): { outcome: string; nextStep: string; actionStatus?: string } {
  const first = s.previous?.nodeAction?.id;
  if (!first) return singleOutcomeOf(s);
  const r = singleOutcomeOf(s);
  const followUp = s.plan?.nodeAction?.id ?? 'follow-up';
  const notRun = /^no action: /.test(r.outcome)
    ? `${followUp} not run: ${r.outcome.slice('no action: '.length)}`
    : undefined;
  return { ...r, outcome: `${first} done; ${notRun ?? `${followUp}: ${r.outcome}`}` };
}

function singleOutcomeOf(s: SummarizeInput): { outcome: string; nextStep: string; actionStatus?: string } {
  const rec = s.plan?.recommendations?.[0];
  if (s.error)
    return { outcome: 'workflow failed', nextStep: 'open the execution below; the incident was not handled' };
  const answer = lastAnswer(s);
  if (answer?.approved === false) {
    return { outcome: `no action: ${answer.reason ?? 'rejected'}`, nextStep: rec ?? 'handle the incident by hand' };
  }
  if (s.actBlocked)
    return {
      outcome: `no action: blocked right before acting: ${blockedReason(s.actBlocked)}`,
      nextStep: rec ?? 'handle the incident by hand',
      actionStatus: 'blocked',
    };
  if (s.action?.error) {
    const notManaged = /InvalidInstanceId/.test(`${s.action.error.Error} ${s.action.error.Cause}`);
    return {
      outcome: notManaged ? 'no action: node not reachable through SSM' : `action not sent: ${s.action.error.Error}`,
      nextStep: notManaged
        ? 'register the node with SSM (agent + AmazonSSMManagedInstanceCore) or repair by hand'
        : 'open the execution below',
      actionStatus: 'not-sent',
    };
  }
  if (s.action?.result) {
    const st = s.action.result.status;
    if (st !== 'Success')
      return {
        outcome: `action ${st === 'PollTimeout' ? 'timed out' : `failed (${st})`}`,
        nextStep: 'read the command output below; repair by hand or replace the node',
        actionStatus: st,
      };
    if (s.verification) {
      return s.verification.verified
        ? { outcome: 'repaired and verified', nextStep: s.verification.nextStep, actionStatus: 'Success' }
        : {
            outcome: `repaired, verification failed: ${s.verification.reason}`,
            nextStep: s.verification.nextStep,
            actionStatus: 'Success',
          };
    }
    return { outcome: `${s.plan?.nodeAction?.id ?? 'action'} done`, nextStep: rec ?? 'none', actionStatus: 'Success' };
  }
  if (s.plan?.decision === 'blocked')
    return { outcome: 'diagnosed; action blocked by safety policy', nextStep: rec ?? 'see SAFETY below' };
  return { outcome: 'diagnosed; action recommended', nextStep: rec ?? 'see the checks below' };
}
