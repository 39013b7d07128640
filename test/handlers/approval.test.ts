import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestApproval } from '../../lambdas/aws/workflow/approval.js';
import { escapeHtml, handleApprovalHttp, reviewSignature } from '../../lambdas/aws/workflow/approval-page.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

const SECRET = 'k'.repeat(64);
const NOW = Date.parse('2026-11-29T10:00:00Z');
/** The digest of the request the door asks about (lambdas/core/door/action-request.ts requestDigest). */
const DIGEST = '5'.repeat(64);
const sns = new SNSClient({ region: 'eu-west-1' });
const sfn = new SFNClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const sfnMock = mockClient(sfn);
let dynamo: LocalTable;
let link: Record<string, string>;

beforeEach(async () => {
  dynamo = await freshTable('incidents');
  snsMock.reset();
  sfnMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
  sfnMock.on(SendTaskSuccessCommand).resolves({});
  await requestApproval(
    {
      taskToken: 'AQCE-secret-task-token',
      incidentId: 'inc-1',
      class: 'pid-exhaustion',
      cluster: 'prod-eu',
      node: { privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
      ask: ask('restart-runtime', 'restart kubelet and containerd'),
      findings: [{ id: 'node.pids', status: 'fail', summary: 'PID use at 97%' }],
      executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
    },
    {
      ddb: dynamo.client,
      tableName: 'incidents',
      secret: SECRET,
      sns,
      topicArn: 'arn:aws:sns:eu-west-1:111122223333:t',
      callbackUrl: 'https://x.lambda-url.eu-west-1.on.aws/',
      timeoutMinutes: 60,
      now: () => NOW,
    },
  );
  const message = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message);
  link = Object.fromEntries(
    new URL(String(/Review and decide: +(\S+)/.exec(message)?.[1])).searchParams.entries(),
  ) as typeof link;
});

/** What the door asks for: one request, by its digest. */
function ask(kind: 'restart-runtime', description: string) {
  return {
    slot: 'followUp' as const,
    kind,
    digest: DIGEST,
    line: `${kind} on ip-10-0-12-34.eu-west-1.compute.internal`,
    description,
    diff: [],
    reason: 'disruptive action: always asks first',
  };
}

const deps = (now: number) => ({
  ddb: dynamo.client,
  tableName: 'incidents',
  secret: SECRET,
  sfn,
  now: () => now,
});
const get = (q: Record<string, string>, now = NOW + 60_000, userAgent = 'Microsoft Defender SafeLinks') =>
  handleApprovalHttp({ method: 'GET', query: q, sourceIp: '40.94.1.1', userAgent }, deps(now));
/** The hidden fields of the page's form. */
const formOf = (html: string) =>
  Object.fromEntries([...html.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const post = (form: Record<string, string>, now = NOW + 120_000) =>
  handleApprovalHttp(
    {
      method: 'POST',
      query: {},
      body: new URLSearchParams(form).toString(),
      sourceIp: '203.0.113.10',
      userAgent: 'Mozilla/5.0 (approver)',
    },
    deps(now),
  );
const decided = () => sfnMock.commandCalls(SendTaskSuccessCommand);

describe('approval: a page, then a decision by POST (finding 4)', () => {
  it('the e-mail carries the plan and the evidence and one review link, never the task token', () => {
    const m = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message);
    expect(m).toContain('PLAN      restart kubelet and containerd');
    expect(m).toContain('FAIL node.pids: PID use at 97%');
    expect(m).not.toContain('AQCE-secret-task-token');
    expect(m).not.toMatch(/decision=/);
  });

  it('a mail scanner fetching the link (GET, many times) decides nothing; the human still can', async () => {
    for (let i = 0; i < 3; i++) {
      const page = await get(link);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('PLAN      restart kubelet and containerd');
      expect(page.body).toContain('FAIL node.pids: PID use at 97%');
      expect(page.body).toContain('Deadline: <strong>2026-11-29T11:00:00.000Z');
    }
    expect(decided()).toHaveLength(0);
    const r = await post({ ...formOf((await get(link, NOW + 90_000, 'Mozilla/5.0')).body), decision: 'approve' });
    expect(r.statusCode).toBe(200);
    expect(decided()).toHaveLength(1);
    // The approval names exactly the request the door asked about: its digest is granted, and the
    // answer carries it back.
    expect(await dynamo.get({ pk: `GRANT#${DIGEST}`, sk: 'GRANT' })).toMatchObject({ approvedAt: NOW + 120_000 });
    expect(JSON.parse(String(decided()[0].args[0].input.output))).toMatchObject({
      approved: true,
      digest: DIGEST,
      slot: 'followUp',
    });
  });

  it('the decision records who and when (source IP, user agent) and resumes once', async () => {
    const form = formOf((await get(link)).body);
    await post({ ...form, decision: 'approve' });
    const out = JSON.parse(String(decided()[0].args[0].input.output));
    expect(out).toMatchObject({
      approved: true,
      decidedAt: '2026-11-29T10:02:00.000Z',
      decidedBy: { sourceIp: '203.0.113.10', userAgent: 'Mozilla/5.0 (approver)' },
    });
    expect(decided()[0].args[0].input.taskToken).toBe('AQCE-secret-task-token');
    const row = (await dynamo.scan()).find((i) => String(i.pk).startsWith('APPROVAL#'));
    expect(row).toMatchObject({ decision: 'approve', decidedBy: { sourceIp: '203.0.113.10' }, usedAt: NOW + 120_000 });
    expect(await post({ ...form, decision: 'reject' })).toMatchObject({ statusCode: 409 });
    expect((await get(link)).statusCode).toBe(409);
    expect(decided()).toHaveLength(1);
  });

  it('a decision Step Functions refuses (AccessDenied, throttling) does not burn the link: the retry decides', async () => {
    const form = formOf((await get(link)).body);
    sfnMock.on(SendTaskSuccessCommand).rejectsOnce(
      Object.assign(new Error('User is not authorized to perform: states:SendTaskSuccess'), {
        name: 'AccessDeniedException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    const failed = await post({ ...form, decision: 'approve' });
    expect(failed).toMatchObject({ statusCode: 503, body: expect.stringContaining('AccessDeniedException') });
    const row = () => dynamo.scan().then((items) => items.find((i) => String(i.pk).startsWith('APPROVAL#')));
    expect((await row())?.usedAt).toBeUndefined();
    const retried = await post({ ...form, decision: 'approve' }, NOW + 180_000);
    expect(retried.statusCode).toBe(200);
    expect(decided()).toHaveLength(2);
    expect(await row()).toMatchObject({ decision: 'approve', usedAt: NOW + 180_000 });
  });

  it('reject resumes with approved=false', async () => {
    await post({ ...formOf((await get(link)).body), decision: 'reject' });
    expect(JSON.parse(String(decided()[0].args[0].input.output))).toMatchObject({ approved: false });
    // A rejection grants nothing: the door asks again or refuses, it never runs the request.
    expect(await dynamo.get({ pk: `GRANT#${DIGEST}`, sk: 'GRANT' })).toBeUndefined();
  });

  it('a POST without the page token, with a forged one, or from a stale page decides nothing', async () => {
    const form = formOf((await get(link)).body);
    expect(await post({ ...link, decision: 'approve' })).toMatchObject({ statusCode: 400 });
    expect(
      await post({ ...form, token: form.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), decision: 'approve' }),
    ).toMatchObject({ statusCode: 403 });
    expect(await post({ ...form, issued: String(NOW + 100_000), decision: 'approve' })).toMatchObject({
      statusCode: 403,
    });
    expect(await post({ ...form, decision: 'approve' }, NOW + 60_000 + 16 * 60_000)).toMatchObject({ statusCode: 410 });
    expect(await post({ ...form, decision: 'maybe' })).toMatchObject({ statusCode: 400 });
    expect(decided()).toHaveLength(0);
  });

  it('refuses an extended expiry, a link signed with another key, an expired link, other methods', async () => {
    expect(await get({ ...link, exp: String(Number(link.exp) + 86_400_000) })).toMatchObject({ statusCode: 403 });
    expect(await get({ ...link, sig: reviewSignature('another-key', link.id, Number(link.exp)) })).toMatchObject({
      statusCode: 403,
    });
    expect(await get(link, NOW + 61 * 60_000)).toMatchObject({ statusCode: 410 });
    expect(
      await handleApprovalHttp({ method: 'PUT', query: link, sourceIp: 'x', userAgent: 'x' }, deps(NOW)),
    ).toMatchObject({ statusCode: 405 });
    expect(decided()).toHaveLength(0);
  });

  it.each([
    [{}],
    [{ id: '../../etc', exp: '1', sig: 'x' }],
    [{ id: '00000000-0000-0000-0000-000000000000', exp: 'soon', sig: 'x' }],
  ])('refuses malformed link %j', async (q) => {
    expect(await get(q as Record<string, string>)).toMatchObject({ statusCode: 400 });
  });

  it('escapes tenant text on the page', () => {
    expect(escapeHtml('<script>alert(1)</script>"\'`&')).toBe(
      '&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#96;&#38;',
    );
  });
});

describe('approval request subject', () => {
  it('stays under the 100 characters SNS accepts, however long the cluster and node names', async () => {
    snsMock.reset();
    snsMock.on(PublishCommand).resolves({ MessageId: 'm-2' });
    await requestApproval(
      {
        taskToken: 't',
        incidentId: 'inc-2',
        class: 'pid-exhaustion',
        cluster: 'c'.repeat(100),
        node: { privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
        ask: ask('restart-runtime', 'restart'),
        findings: [],
        executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-2',
      },
      {
        ddb: dynamo.client,
        tableName: 'incidents',
        secret: SECRET,
        sns,
        topicArn: 'arn:aws:sns:eu-west-1:111122223333:t',
        callbackUrl: 'https://x.lambda-url.eu-west-1.on.aws/',
        timeoutMinutes: 60,
        now: () => NOW,
      },
    );
    const subject = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Subject);
    expect(subject.length).toBeLessThan(100);
    expect(subject).toMatch(/^\[pod-doctor\] approval needed: restart-runtime on c+\.\.\.$/);
  });
});
