import '../support/deployed-env.js';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestApproval } from '../../lambdas/aws/workflow/approval.js';
import { handleApprovalHttp } from '../../lambdas/aws/workflow/approval-page.js';
import { approvalKeys } from '../../lambdas/aws/workflow/secret.js';
import { createHandler as callbackHandler } from '../../lambdas/handlers/approval-callback.js';
import { createHandler as rotationHandler } from '../../lambdas/handlers/approval-key-rotation.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { LocalSecret } from '../../local/local-secret.js';
import { lambdaContext } from '../support/lambda-context.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ApprovalKey-AbCdEf';
const NOW = Date.parse('2026-11-29T10:00:00Z');
const STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
const sns = new SNSClient({ region: 'eu-west-1' });
const sfn = new SFNClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const sfnMock = mockClient(sfn);
let table: LocalTable;
let secret: LocalSecret;

beforeEach(async () => {
  table = await freshTable('incidents');
  secret = new LocalSecret(ARN, 'k'.repeat(64));
  snsMock.reset();
  sfnMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
  sfnMock.on(SendTaskSuccessCommand).resolves({});
});

/** One scheduled rotation, every step run twice (Secrets Manager retries steps). */
async function rotate(): Promise<void> {
  const handler = rotationHandler(secret.client());
  const token = secret.startRotation();
  for (const Step of STEPS)
    for (let i = 0; i < 2; i++) await handler({ SecretId: ARN, ClientRequestToken: token, Step }, lambdaContext());
}

/** An approval request signed with `key`; returns the review link's query. */
async function requestSignedWith(key: string): Promise<Record<string, string>> {
  snsMock.resetHistory();
  await requestApproval(
    {
      taskToken: 'AQCE-task-token',
      incidentId: 'inc-1',
      class: 'pid-exhaustion',
      cluster: 'prod-eu',
      ask: {
        slot: 'followUp',
        kind: 'restart-runtime',
        digest: 'a'.repeat(64),
        line: 'restart-runtime on ip-10-0-12-34.eu-west-1.compute.internal',
        description: 'restart kubelet and containerd',
        diff: [],
        reason: 'disruptive action: always asks first',
      },
      executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
    },
    {
      ddb: table.client,
      tableName: table.name,
      secret: key,
      sns,
      topicArn: 'arn:aws:sns:eu-west-1:111122223333:t',
      callbackUrl: 'https://x.lambda-url.eu-west-1.on.aws/',
      timeoutMinutes: 60,
      now: () => NOW,
    },
  );
  const message = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message);
  return Object.fromEntries(new URL(String(/Review and decide: +(\S+)/.exec(message)?.[1])).searchParams.entries());
}

const pageDeps = (keys: { current: string; previous?: string }) => ({
  ddb: table.client,
  tableName: table.name,
  secret: keys.current,
  previousSecret: keys.previous,
  sfn,
  now: () => NOW + 60_000,
});
const view = (query: Record<string, string>, keys: { current: string; previous?: string }) =>
  handleApprovalHttp({ method: 'GET', query, sourceIp: '203.0.113.10', userAgent: 'Mozilla/5.0' }, pageDeps(keys));
const formOf = (html: string) =>
  Object.fromEntries([...html.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));

describe('scheduled rotation of the approval signing key (Secrets Manager, four steps)', () => {
  it('puts a new 64-character key in place; the old one becomes AWSPREVIOUS; every step may be retried', async () => {
    await rotate();
    const current = secret.valueAt('AWSCURRENT');
    expect(current).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(current).not.toBe('k'.repeat(64));
    expect(secret.valueAt('AWSPREVIOUS')).toBe('k'.repeat(64));
  });

  it('refuses to rotate a secret whose rotation is off, or a version that is not pending', async () => {
    const handler = rotationHandler(secret.client());
    const token = secret.startRotation();
    secret.rotationEnabled = false;
    await expect(
      handler({ SecretId: ARN, ClientRequestToken: token, Step: 'createSecret' }, lambdaContext()),
    ).rejects.toThrow('rotation is not enabled');
    secret.rotationEnabled = true;
    await expect(
      handler({ SecretId: ARN, ClientRequestToken: '0'.repeat(36), Step: 'createSecret' }, lambdaContext()),
    ).rejects.toThrow('is not a version of');
  });
});

describe('a pending approval is honoured across one rotation, not two', () => {
  it('a link signed before a rotation shows its page and decides after it; after a second rotation it is refused', async () => {
    const link = await requestSignedWith('k'.repeat(64));
    await rotate();
    const afterOne = { current: String(secret.valueAt('AWSCURRENT')), previous: secret.valueAt('AWSPREVIOUS') };
    const page = await view(link, afterOne);
    expect(page.statusCode).toBe(200);
    const decided = await handleApprovalHttp(
      {
        method: 'POST',
        query: {},
        body: new URLSearchParams({ ...formOf(page.body), decision: 'approve' }).toString(),
        sourceIp: '203.0.113.10',
        userAgent: 'Mozilla/5.0',
      },
      pageDeps(afterOne),
    );
    expect(decided.statusCode).toBe(200);
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
    await rotate();
    const afterTwo = { current: String(secret.valueAt('AWSCURRENT')), previous: secret.valueAt('AWSPREVIOUS') };
    expect((await view(link, afterTwo)).statusCode).toBe(403);
  });

  it('a warm endpoint whose keys predate the rotation reads them again before refusing a link signed with the new key', async () => {
    const clock = { t: NOW };
    const keys = approvalKeys(secret.client(), ARN, () => clock.t);
    expect((await keys.get()).current).toBe('k'.repeat(64));
    await rotate();
    const link = await requestSignedWith(String(secret.valueAt('AWSCURRENT')));
    const handler = callbackHandler({ keys, page: async (k) => pageDeps(k), now: () => NOW + 60_000 });
    const r = await handler(
      {
        requestContext: { http: { method: 'GET', sourceIp: '203.0.113.10', userAgent: 'Mozilla/5.0' } },
        queryStringParameters: link,
        isBase64Encoded: false,
      },
      lambdaContext(),
    );
    expect(r).toMatchObject({ statusCode: 200 });
  });
});

describe('the public endpoint refuses what cannot be a valid link before any AWS call', () => {
  const untouched = {
    keys: {
      get: () => Promise.reject(new Error('keys read for a junk request')),
      refresh: () => Promise.reject(new Error('keys read for a junk request')),
    },
    page: () => Promise.reject(new Error('table or Step Functions touched for a junk request')),
    now: () => NOW,
  };
  const call = (method: string, query: Record<string, string>, body?: string) =>
    callbackHandler(untouched)(
      {
        requestContext: { http: { method, sourceIp: '198.51.100.7', userAgent: 'curl/8' } },
        queryStringParameters: query,
        body,
        isBase64Encoded: false,
      },
      lambdaContext(),
    );
  const id = '3f2b8c1e-9d4a-4b6e-8f7a-1c2d3e4f5a6b';
  const sig = 'A'.repeat(43);

  it.each([
    ['another method', 'DELETE', {}, undefined, 405],
    ['no link', 'GET', {}, undefined, 400],
    ['a malformed signature', 'GET', { id, exp: String(NOW + 3_600_000), sig: 'x' }, undefined, 400],
    ['an expired link', 'GET', { id, exp: String(NOW - 1), sig }, undefined, 410],
    ['a POST without the page token', 'POST', {}, `id=${id}&exp=${NOW + 3_600_000}&sig=${sig}&decision=approve`, 400],
    [
      'a stale page',
      'POST',
      {},
      `id=${id}&exp=${NOW + 3_600_000}&sig=${sig}&nonce=n&issued=${NOW - 3_600_000}&token=t&decision=approve`,
      410,
    ],
  ] as const)('%s', async (_what, method, query, body, status) => {
    expect(await call(method, query, body)).toMatchObject({ statusCode: status });
  });
});
