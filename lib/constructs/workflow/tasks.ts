import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { TaskInput, TaskStateBase } from 'aws-cdk-lib/aws-stepfunctions';
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

/**
 * Errors the door's Task retries: a Lambda step's, and the 5xx its SDK calls still answer after the
 * SDK's own retries (Run Command's and DynamoDB's InternalServerError). A retried door call is safe:
 * its reservations are idempotent per execution and request, and the call's ledger row
 * (lambdas/aws/door/call-ledger.ts) holds what an attempt before began or finished, which the retry
 * reports instead of gating the change again.
 */
export const DOOR_TRANSIENT = [...LAMBDA_TRANSIENT, 'InternalServerError'];

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
