import type { Context } from 'aws-lambda';

/** A Lambda invocation context as the runtime passes it (what Powertools reads from it). */
export function lambdaContext(
  functionName = 'pod-doctor-test',
  awsRequestId = 'c6af9ac6-7b61-11e6-9a41-93e812345678',
): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:111122223333:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2026/11/30/[$LATEST]0123456789abcdef0123456789abcdef',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
