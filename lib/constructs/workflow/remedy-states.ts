import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Choice, Condition, type IChainable, Pass, TaskInput, type TaskStateBase } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { approvalStates } from './approval-states.js';
import { invokeNarrowed } from './tasks.js';

/** Props of {@link remedyStates}. */
export interface RemedyStatesProps {
  /** The remedy function: account remedies ("Prepare remedy", "Apply remedy"); absent: none run. */
  readonly remedy?: IFunction;
  /**
   * The Kubernetes function: cluster remedies ("Prepare cluster remedy", "Apply cluster remedy");
   * absent: none run (Decide then recommends them: no cluster access).
   */
  readonly kubernetes?: IFunction;
  /** The approval request function. */
  readonly requestApproval: IFunction;
  readonly approvalTimeout: Duration;
  /** Where the node part of the plan continues after the remedy (act, ask or summarize). */
  readonly nodePath: IChainable;
  readonly summarize: IChainable;
  /** Catches every error of a task into the failure path. */
  readonly onError: <T extends TaskStateBase>(s: T) => T;
}

const RECORD_FIELDS = ['remedy', 'change', 'status', 'reason', 'diff', 'before', 'after', 'applied', 'verification'];
const fieldsOf = (path: string, fields: readonly string[]) =>
  Object.fromEntries(fields.map((f) => [`${f}.$`, `${path}.${f}`]));

/** Remedies the Kubernetes function runs (lambdas/core/remedy/kubernetes-paths.ts); the rest are account remedies. */
export const CLUSTER_REMEDIES = ['restart-aws-node', 'enable-windows-ipam'] as const;

const KIND = '$.plan.remedy.target.kind';
const IS_CLUSTER = Condition.or(...CLUSTER_REMEDIES.map((k) => Condition.stringEquals(KIND, k)));

/**
 * The plan carries a remedy that runs (prepared, then applied when auto or approved) and the stack
 * has the function for its kind.
 */
export function remedyRuns(p: Pick<RemedyStatesProps, 'remedy' | 'kubernetes'>): Condition {
  const runs = Condition.and(
    Condition.isPresent('$.plan.remedy.target'),
    Condition.or(...['auto', 'approve', 'dry-run'].map((d) => Condition.stringEquals('$.plan.remedy.disposition', d))),
  );
  if (p.remedy && p.kubernetes) return runs;
  return Condition.and(runs, p.kubernetes ? IS_CLUSTER : Condition.not(IS_CLUSTER));
}

/**
 * The remedy, entered from "Act, ask or report?" when {@link remedyRuns}: [Account or cluster
 * remedy?] → Prepare (re-check, dry-run diff) → [Request remedy approval] → Apply (change, verify,
 * roll back) → its follow-up remedy, if the plan has one, through the same states → the node part of
 * the plan when the remedy is verified (or no longer needed), else summarize. Account remedies run
 * in the remedy function, cluster remedies in the Kubernetes function, with the same record fields.
 * Returns the entry state.
 */
export function remedyStates(scope: Construct, p: RemedyStatesProps): IChainable {
  const prepare = byKind(scope, 'Account or cluster remedy?', tasks(scope, p, 'prepare', '$.remedyPrepared'));
  const apply = byKind(scope, 'Apply to account or cluster?', tasks(scope, p, 'apply', '$.remedyApplied'));
  const followUp = new Pass(scope, 'Follow-up as remedy', {
    inputPath: '$.plan.remedy.followUp',
    resultPath: '$.plan.remedy',
  }).next(prepare.entry);
  // The first remedy's record, with its plan (and so its approval answer): the follow-up replaces both.
  const keepFirst = (id: string, kept: string) =>
    new Pass(scope, `Keep first remedy${id}`, {
      parameters: { ...fieldsOf(kept, RECORD_FIELDS), 'plan.$': '$.plan.remedy' },
      resultPath: '$.remedyFirst',
    });
  const next = (id: string, kept: '$.remedyApplied' | '$.remedyPrepared') =>
    new Choice(scope, `Follow-up remedy${id}?`)
      .when(Condition.isPresent('$.plan.remedy.followUp.target'), keepFirst(id, kept).next(followUp))
      .otherwise(p.nodePath);
  const verified = new Choice(scope, 'Remedy verified?')
    .when(
      Condition.or(
        Condition.stringEquals('$.remedyApplied.status', 'verified'),
        Condition.stringEquals('$.remedyApplied.status', 'not-needed'),
      ),
      next('', '$.remedyApplied'),
    )
    .otherwise(p.summarize);
  const ready = (disposition: string) =>
    Condition.and(
      Condition.stringEquals('$.remedyPrepared.status', 'dry-run'),
      Condition.stringEquals('$.plan.remedy.disposition', disposition),
    );
  const readyChoice = new Choice(scope, 'Remedy ready?')
    .when(ready('auto'), apply.entry)
    .when(ready('approve'), approvalRequest(scope, p, apply.entry))
    .when(
      Condition.stringEquals('$.remedyPrepared.status', 'not-needed'),
      next(' (first not needed)', '$.remedyPrepared'),
    )
    .otherwise(p.summarize);
  for (const t of prepare.tasks) t.next(readyChoice);
  for (const t of apply.tasks) t.next(verified);
  return prepare.entry;
}

interface PhaseTasks {
  readonly account?: TaskStateBase;
  readonly cluster?: TaskStateBase;
}

/** One phase's tasks: the remedy function's and the Kubernetes function's, as the stack has them. */
function tasks(scope: Construct, p: RemedyStatesProps, phase: 'prepare' | 'apply', resultPath: string): PhaseTasks {
  const name = phase === 'prepare' ? 'Prepare' : 'Apply';
  const account =
    p.remedy &&
    p.onError(
      invokeNarrowed(
        scope,
        `${name} remedy`,
        p.remedy,
        TaskInput.fromObject({
          phase,
          'incidentId.$': '$.incidentId',
          'cluster.$': '$.cluster',
          'region.$': '$.open.region',
          'node.$': '$.node',
          'target.$': '$.plan.remedy.target',
        }),
        RECORD_FIELDS,
        resultPath,
      ),
    );
  const cluster = p.kubernetes && clusterTask(scope, p, p.kubernetes, phase, resultPath);
  return { ...(account ? { account } : {}), ...(cluster ? { cluster } : {}) };
}

/**
 * "Prepare/Apply cluster remedy": the Kubernetes function runs the apply path on the node the
 * workflow resolved from EC2 (`$.node`). A function error (no access entry, API unreachable) is a
 * `failed` record of the remedy, summarized and notified, not a failed incident.
 */
function clusterTask(
  scope: Construct,
  p: RemedyStatesProps,
  fn: IFunction,
  phase: 'prepare' | 'apply',
  resultPath: string,
): TaskStateBase {
  const name = phase === 'prepare' ? 'Prepare' : 'Apply';
  const task = invokeNarrowed(
    scope,
    `${name} cluster remedy`,
    fn,
    TaskInput.fromObject({
      action: 'remedy',
      phase,
      'cluster.$': '$.cluster',
      'node.$': '$.node',
      'remedy.$': '$.plan.remedy.target',
    }),
    RECORD_FIELDS,
    resultPath,
    '$.Payload.record',
  );
  const failed = new Pass(scope, `${name} cluster remedy failed`, {
    parameters: {
      'remedy.$': '$.plan.remedy.id',
      'change.$': '$.plan.remedy.id',
      status: 'failed',
      'reason.$':
        "States.Format('the Kubernetes function failed ({}): see the execution history', $.remedyError.Error)",
      diff: [],
      before: [],
      after: [],
    },
    resultPath,
  });
  task.addCatch(failed.next(p.summarize), { resultPath: '$.remedyError' });
  return task;
}

/** A Choice on the target's kind when the stack runs both kinds; else the one task. */
function byKind(scope: Construct, id: string, t: PhaseTasks): { entry: IChainable; tasks: TaskStateBase[] } {
  const all = [t.account, t.cluster].filter((x): x is TaskStateBase => x !== undefined);
  if (t.account && t.cluster)
    return { entry: new Choice(scope, id).when(IS_CLUSTER, t.cluster).otherwise(t.account), tasks: all };
  if (!all[0]) throw new Error('remedy states need the remedy or the Kubernetes function');
  return { entry: all[0], tasks: all };
}

/** Request remedy approval (the dry-run diff in the e-mail) → Remedy approved? → apply or summarize. */
function approvalRequest(scope: Construct, p: RemedyStatesProps, apply: IChainable): TaskStateBase {
  return approvalStates(scope, {
    ...p,
    names: { request: 'Request remedy approval', expired: 'Remedy approval expired', approved: 'Remedy approved?' },
    extraPayload: { 'remedy.$': '$.remedyPrepared' },
    // With the remedy it answers: a follow-up remedy or a node action asks again without replacing it.
    resultPath: '$.plan.remedy.approval',
    onApproved: apply,
  });
}
