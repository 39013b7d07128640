import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { handleApprovalCallback, requestApproval, sign } from '../../lambdas/aws/workflow/approval.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

const SECRET = 'k'.repeat(64);
const NOW = Date.parse('2026-11-29T10:00:00Z');
const sns = new SNSClient({ region: 'eu-west-1' });
const sfn = new SFNClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const sfnMock = mockClient(sfn);
let dynamo: LocalTable;
let links: Record<'approve' | 'reject', Record<string, string>>;

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
      plan: {
        nodeAction: { id: 'restart-runtime', description: 'restart kubelet and containerd' },
        findings: [{ id: 'node.pids', status: 'fail', summary: 'PID use at 97%' }],
      },
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
  const link = (d: string) =>
    Object.fromEntries(new URL(String(new RegExp(`${d}: +(\\S+)`).exec(message)?.[1])).searchParams.entries());
  links = { approve: link('Approve'), reject: link('Reject') };
});

const callback = (q: Record<string, string>, now = NOW + 60_000) =>
  handleApprovalCallback(q, { ddb: dynamo.client, tableName: 'incidents', secret: SECRET, sfn, now: () => now });

describe('approval links', () => {
  it('the e-mail carries the plan and the evidence, never the task token', () => {
    const m = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message);
    expect(m).toContain('PLAN      restart kubelet and containerd');
    expect(m).toContain('FAIL node.pids: PID use at 97%');
    expect(m).not.toContain('AQCE-secret-task-token');
  });

  it('a valid approve link resumes the execution with approved=true, once', async () => {
    expect(await callback(links.approve)).toMatchObject({ statusCode: 200 });
    const out = JSON.parse(String(sfnMock.commandCalls(SendTaskSuccessCommand)[0].args[0].input.output));
    expect(out).toMatchObject({ approved: true });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)[0].args[0].input.taskToken).toBe('AQCE-secret-task-token');
    expect(await callback(links.approve)).toMatchObject({ statusCode: 409 });
    expect(await callback(links.reject)).toMatchObject({ statusCode: 409 });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
  });

  it('a reject link resumes with approved=false', async () => {
    await callback(links.reject);
    expect(JSON.parse(String(sfnMock.commandCalls(SendTaskSuccessCommand)[0].args[0].input.output))).toMatchObject({
      approved: false,
    });
  });

  it('refuses a link whose decision was changed (the signature covers it)', async () => {
    expect(await callback({ ...links.reject, decision: 'approve' })).toMatchObject({ statusCode: 403 });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it('refuses an extended expiry', async () => {
    expect(await callback({ ...links.approve, exp: String(Number(links.approve.exp) + 86_400_000) })).toMatchObject({
      statusCode: 403,
    });
  });

  it('refuses a link signed with another key', async () => {
    const forged = sign('another-key', links.approve.id, Number(links.approve.exp), 'approve');
    expect(await callback({ ...links.approve, sig: forged })).toMatchObject({ statusCode: 403 });
  });

  it('refuses an expired link', async () => {
    expect(await callback(links.approve, NOW + 61 * 60_000)).toMatchObject({ statusCode: 410 });
    expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(0);
  });

  it.each([
    [{}],
    [{ id: '../../etc', exp: '1', decision: 'approve', sig: 'x' }],
    [{ id: '00000000-0000-0000-0000-000000000000', exp: 'soon', decision: 'approve', sig: 'x' }],
  ])('refuses malformed link %j', async (q) => {
    expect(await callback(q as Record<string, string>)).toMatchObject({ statusCode: 400 });
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
        plan: { nodeAction: { id: 'restart-runtime', description: 'restart' }, findings: [] },
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
