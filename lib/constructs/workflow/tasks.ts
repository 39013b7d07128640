import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IChainable, TaskInput, type TaskStateBase } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';

/** Errors a Lambda step retries: throttling and transient service errors. */
export const LAMBDA_TRANSIENT = [
  'ThrottlingException',
  // A function's own error type when DynamoDB still throttled after the SDK's retries.
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
  'Lambda.SdkClientException',
];

/** Errors an SSM step retries. */
export const SSM_TRANSIENT = ['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException', 'Ssm.SsmException'];

/**
 * Errors an SNS publish step retries: the Publish API's throttling and internal errors (its KMS
 * throttling too, the topic being encrypted), as the sns:publish integration names them.
 */
export const SNS_TRANSIENT = [
  'SNS.ThrottledException',
  'SNS.InternalErrorException',
  'SNS.KMSThrottlingException',
  'SNS.SdkClientException',
];

/** Explicit Retry on throttling and transient service errors. */
export function retried<T extends TaskStateBase>(task: T, errors: string[] = LAMBDA_TRANSIENT): T {
  task.addRetry({ errors, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2, jitterStrategy: undefined });
  return task;
}

/**
 * A retried Lambda step whose output is narrowed to `fields` of the function's result (of the object
 * at `from` in it, e.g. `$.Payload.record`).
 */
export function invokeNarrowed(
  scope: Construct,
  id: string,
  fn: IFunction,
  payload: TaskInput,
  fields: readonly string[],
  resultPath?: string,
  from = '$.Payload',
): LambdaInvoke {
  return retried(
    new LambdaInvoke(scope, id, {
      lambdaFunction: fn,
      payload,
      resultSelector: Object.fromEntries(fields.map((f) => [`${f}.$`, `${from}.${f}`])),
      resultPath,
      retryOnServiceExceptions: false,
    }),
  );
}

/** Where a follow-up action's gate reads its recheck and writes its answer. */
export interface FollowUpGateOptions {
  /** The action the gate admits (its `plan.nodeAction.id`), e.g. `drain-node`. */
  readonly action: string;
  /** The node probe taken right before the action (e.g. `$.drainRecheck`). */
  readonly recheckPath: string;
  /** Where the gate's verdict goes (e.g. `$.drainGate`). */
  readonly resultPath: string;
  /** Where a refusal (ActBlockedError) is recorded before `blocked` runs (e.g. `$.drainBlocked`). */
  readonly blockedPath: string;
  /** The state a refusal goes to (the summary). */
  readonly blocked: IChainable;
}

/**
 * "<name>: gate": the act gate a follow-up action (drain, eviction) passes right before it runs —
 * kill switch, cooldown, breaker, hourly cap, the node probe just taken; a refusal ends recorded.
 */
export function followUpGate(scope: Construct, name: string, actGate: IFunction, o: FollowUpGateOptions): LambdaInvoke {
  const gate = invokeNarrowed(
    scope,
    `${name}: gate`,
    actGate,
    TaskInput.fromObject({
      'class.$': '$.class',
      'cluster.$': '$.cluster',
      'execution.$': '$.execution',
      'node.$': '$.node',
      plan: { nodeAction: { id: o.action }, 'nodeGroupSize.$': '$.plan.nodeGroupSize' },
      'recheck.$': o.recheckPath,
    }),
    ['sentAt', 'gate'],
    o.resultPath,
  );
  gate.addCatch(o.blocked, { errors: ['ActBlockedError'], resultPath: o.blockedPath });
  return gate;
}
