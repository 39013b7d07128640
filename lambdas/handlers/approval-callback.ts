import { SFNClient } from '@aws-sdk/client-sfn';
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { handleApprovalCallback } from '../aws/workflow/approval.js';
import { documentClient, logger, tracer, workflowConfig } from '../aws/workflow/runtime.js';
import { approvalSecret } from '../aws/workflow/secret.js';

const sfn = tracer.captureAWSv3Client(new SFNClient({ maxAttempts: 6 }));

/** Function URL behind the approve / reject links. */
export const handler = async (event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> => {
  const r = await handleApprovalCallback(event.queryStringParameters ?? {}, {
    ddb: documentClient(),
    tableName: workflowConfig().tableName,
    secret: await approvalSecret(),
    sfn,
    now: Date.now,
  });
  logger.info('approval callback', { statusCode: r.statusCode });
  return {
    statusCode: r.statusCode,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
    body: r.body,
  };
};
