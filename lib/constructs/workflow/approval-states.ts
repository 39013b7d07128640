import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Choice,
  Condition,
  type IChainable,
  IntegrationPattern,
  JsonPath,
  Pass,
  Result,
  TaskInput,
  type TaskStateBase,
  Timeout,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { retried } from './tasks.js';

export interface ApprovalStatesProps {
  /** State names: the request Task, the expired Pass and the Approved? Choice. */
  readonly names: { readonly request: string; readonly expired: string; readonly approved: string };
  readonly requestApproval: IFunction;
  readonly approvalTimeout: Duration;
  /** Payload fields besides the incident's own (e.g. the remedy's dry-run diff). */
  readonly extraPayload?: Record<string, string>;
  /**
   * Where the answer goes in the state: with what it answers (the node action, the remedy, the
   * drain), so that a later approval of the same execution never replaces it.
   */
  readonly resultPath: string;
  /** Where an approval goes. */
  readonly onApproved: IChainable;
  /** Where a rejection or an expired deadline goes (no action). */
  readonly summarize: IChainable;
  readonly onError: <T extends TaskStateBase>(s: T) => T;
}

/** Request approval (task token, deadline) → Approved? → `onApproved`; rejected or expired: summarize. */
export function approvalStates(scope: Construct, p: ApprovalStatesProps): TaskStateBase {
  const answer = p.resultPath;
  const request = retried(
    new LambdaInvoke(scope, p.names.request, {
      lambdaFunction: p.requestApproval,
      integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
      payload: TaskInput.fromObject({
        taskToken: JsonPath.taskToken,
        'incidentId.$': '$.incidentId',
        'class.$': '$.class',
        'cluster.$': '$.cluster',
        'node.$': '$.node',
        'plan.$': '$.plan',
        ...p.extraPayload,
        'executionArn.$': '$$.Execution.Id',
      }),
      taskTimeout: Timeout.duration(p.approvalTimeout),
      resultPath: answer,
      retryOnServiceExceptions: false,
    }),
    ['Lambda.TooManyRequestsException'],
  );
  const expired = new Pass(scope, p.names.expired, {
    result: Result.fromObject({ approved: false, reason: 'no answer before the approval deadline' }),
    resultPath: answer,
  }).next(p.summarize);
  // Catches are tried in order: no answer by the deadline is not a failure, just no action.
  request.addCatch(expired, { errors: ['States.Timeout'], resultPath: '$.approvalError' });
  p.onError(request);
  request.next(
    new Choice(scope, p.names.approved)
      .when(Condition.booleanEquals(`${answer}.approved`, true), p.onApproved)
      .otherwise(p.summarize),
  );
  return request;
}
