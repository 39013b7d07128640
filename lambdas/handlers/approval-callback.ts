import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { LambdaFunctionURLResult } from 'aws-lambda';
import * as z from 'zod/mini';
import {
  documentClient,
  logger,
  metrics,
  tracer,
  withPowertools,
  workflowConfig,
} from '../aws/runtime/workflow-runtime.js';
import {
  type ApprovalHttpRequest,
  type ApprovalPageDeps,
  type ApprovalResponse,
  handleApprovalHttp,
  refuseEarly,
} from '../aws/workflow/approval-page.js';
import { type ApprovalKeys, approvalKeys } from '../aws/workflow/secret.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The page's URL carries the link signature: never leak it, never frame the page.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

/**
 * The Function URL request (payload format 2.0), by the fields the page reads. Powertools'
 * LambdaFunctionUrlSchema would do too, but it took the bundle's zod from 93 KB to 443 KB and the
 * import from ~100 to ~130 ms CPU (npm run bench:init).
 */
export const functionUrlEventSchema = z.looseObject({
  requestContext: z.looseObject({
    http: z.looseObject({ method: z.string(), sourceIp: z.string(), userAgent: z.optional(z.string()) }),
  }),
  queryStringParameters: z.optional(z.record(z.string(), z.string())),
  body: z.optional(z.string()),
  isBase64Encoded: z.boolean(),
});

/**
 * Where the page reads its keys: `get` (cached), `refresh` (read again: a link signed with a key
 * rotated in since the last read).
 */
export interface CallbackDeps {
  readonly page: (keys: ApprovalKeys) => Promise<ApprovalPageDeps>;
  readonly keys: { get(): Promise<ApprovalKeys>; refresh(): Promise<ApprovalKeys> };
  readonly now: () => number;
}

/** The page with the keys; a signature none of them verifies is checked once more with freshly read keys. */
async function answer(req: ApprovalHttpRequest, deps: CallbackDeps): Promise<ApprovalResponse> {
  const early = refuseEarly(req, deps.now());
  if (early) return early;
  const r = await handleApprovalHttp(req, await deps.page(await deps.keys.get()));
  if (r.statusCode !== 403) return r;
  return handleApprovalHttp(req, await deps.page(await deps.keys.refresh()));
}

/**
 * Function URL behind the review link: GET shows the approval page, POST from that page decides.
 * Requests that cannot be a valid link are refused before the keys, the table or any AWS call.
 */
export const createHandler = (deps: CallbackDeps) =>
  withPowertools(functionUrlEventSchema, async (event): Promise<LambdaFunctionURLResult> => {
    const http = event.requestContext.http;
    const body = event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    const r = await answer(
      {
        method: http.method,
        query: event.queryStringParameters ?? {},
        body: body?.slice(0, 16_384),
        sourceIp: http.sourceIp,
        userAgent: http.userAgent ?? '',
      },
      deps,
    );
    logger.info('approval endpoint', { method: http.method, statusCode: r.statusCode, sourceIp: http.sourceIp });
    if (r.decided) {
      const m = metrics.singleMetric();
      m.addDimension('decision', r.decided);
      m.addMetric('ApprovalsAnswered', MetricUnit.Count, 1);
    }
    return { statusCode: r.statusCode, headers: { ...HEADERS, 'content-type': r.contentType }, body: r.body };
  });

const env = readEnvironment('approval-callback');
const sfn = tracer.captureAWSv3Client(new SFNClient({ maxAttempts: 6 }));

export const handler = createHandler({
  keys: approvalKeys(tracer.captureAWSv3Client(new SecretsManagerClient({ maxAttempts: 6 })), env.APPROVAL_SECRET_ARN),
  page: async (keys) => ({
    ddb: documentClient(),
    tableName: (await workflowConfig()).tableName,
    secret: keys.current,
    previousSecret: keys.previous,
    sfn,
    now: Date.now,
  }),
  now: Date.now,
});
