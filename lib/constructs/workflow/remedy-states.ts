import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Choice, Condition, type IChainable, TaskInput, type TaskStateBase } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { approvalStates } from './approval-states.js';
import { invokeNarrowed } from './tasks.js';

/** Props of {@link remedyStates}. */
export interface RemedyStatesProps {
  /** The remedy function ("Prepare remedy", "Apply remedy"). */
  readonly remedy: IFunction;
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

/** The plan carries an account remedy that runs (prepared, then applied when auto or approved). */
export const REMEDY_RUNS = Condition.and(
  Condition.isPresent('$.plan.remedy.target'),
  Condition.or(...['auto', 'approve', 'dry-run'].map((d) => Condition.stringEquals('$.plan.remedy.disposition', d))),
);

/**
 * The account remedy, entered from "Act, ask or report?" when {@link REMEDY_RUNS}: Prepare remedy
 * (re-check, dry-run diff) → [Request remedy approval] → Apply remedy (change, verify, roll back) →
 * the node part of the plan when the remedy is verified (or no longer needed), else summarize.
 * Returns the first state ("Prepare remedy").
 */
export function remedyStates(scope: Construct, p: RemedyStatesProps): TaskStateBase {
  const payload = (phase: 'prepare' | 'apply') =>
    TaskInput.fromObject({
      phase,
      'incidentId.$': '$.incidentId',
      'cluster.$': '$.cluster',
      'region.$': '$.open.region',
      'node.$': '$.node',
      'target.$': '$.plan.remedy.target',
    });
  const prepare = p.onError(
    invokeNarrowed(scope, 'Prepare remedy', p.remedy, payload('prepare'), RECORD_FIELDS, '$.remedyPrepared'),
  );
  const apply = p.onError(
    invokeNarrowed(scope, 'Apply remedy', p.remedy, payload('apply'), RECORD_FIELDS, '$.remedyApplied'),
  );
  apply.next(
    new Choice(scope, 'Remedy verified?')
      .when(
        Condition.or(
          Condition.stringEquals('$.remedyApplied.status', 'verified'),
          Condition.stringEquals('$.remedyApplied.status', 'not-needed'),
        ),
        p.nodePath,
      )
      .otherwise(p.summarize),
  );
  const approval = approvalRequest(scope, p, apply);
  const ready = (disposition: string) =>
    Condition.and(
      Condition.stringEquals('$.remedyPrepared.status', 'dry-run'),
      Condition.stringEquals('$.plan.remedy.disposition', disposition),
    );
  prepare.next(
    new Choice(scope, 'Remedy ready?')
      .when(ready('auto'), apply)
      .when(ready('approve'), approval)
      .when(Condition.stringEquals('$.remedyPrepared.status', 'not-needed'), p.nodePath)
      .otherwise(p.summarize),
  );
  return prepare;
}

/** Request remedy approval (the dry-run diff in the e-mail) → Remedy approved? → apply or summarize. */
function approvalRequest(scope: Construct, p: RemedyStatesProps, apply: IChainable): TaskStateBase {
  return approvalStates(scope, {
    ...p,
    names: { request: 'Request remedy approval', expired: 'Remedy approval expired', approved: 'Remedy approved?' },
    extraPayload: { 'remedy.$': '$.remedyPrepared' },
    onApproved: apply,
  });
}
