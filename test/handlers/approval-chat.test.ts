import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestApproval } from '../../lambdas/aws/workflow/approval.js';
import { decideInChat } from '../../lambdas/aws/workflow/approval-chat.js';
import { handleApprovalHttp } from '../../lambdas/aws/workflow/approval-page.js';
import { approvalKey, grantKey } from '../../lambdas/core/contract/incident-table.js';
import { chatCard } from '../../lambdas/core/voices/chat-card.js';
import { approvalNotice } from '../../lambdas/core/voices/stored-notice.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

const SECRET = 'k'.repeat(64);
const NOW = Date.parse('2026-11-29T10:00:00Z');
const DIGEST = '5'.repeat(64);
/** SQS's SenderId of a message sent under an assumed role: the role's id and the session. */
const APPROVER = 'AROAEXAMPLEROLEID123:alice@example.com';
const sns = new SNSClient({ region: 'eu-west-1' });
const sfn = new SFNClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const sfnMock = mockClient(sfn);
let dynamo: LocalTable;

/** Asks for approval of one request for an incident; answers the approval row's id. */
async function ask(incidentId: string, taskToken: string): Promise<string> {
  const { approvalId } = await requestApproval(
    {
      taskToken,
      incidentId,
      class: 'pid-exhaustion',
      cluster: 'prod-eu',
      node: { privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
      ask: {
        slot: 'followUp',
        kind: 'restart-runtime',
        digest: DIGEST,
        line: 'restart-runtime on ip-10-0-12-34.eu-west-1.compute.internal',
        description: 'restart kubelet and containerd',
        diff: [],
        reason: 'disruptive action: always asks first',
      },
      findings: [{ id: 'node.pids', status: 'fail', summary: 'PID use at 97%' }],
      executionArn: `arn:aws:states:eu-west-1:111122223333:execution:wf:${incidentId}`,
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
  return approvalId;
}

const row = async (id: string) =>
  (await dynamo.client.send(new GetCommand({ TableName: 'incidents', Key: approvalKey(id) }))).Item ?? {};

/**
 * What the Approve and Reject buttons will send: the token approval.ts stores on the approval row
 * (for the chat card's custom actions, which are not deployed yet: the card does not carry it).
 */
async function buttons(id: string) {
  const token = String((await row(id)).chat);
  return { approve: `approve/${token}`, reject: `reject/${token}` };
}

const deps = (now = NOW + 60_000) => ({
  ddb: dynamo.client,
  tableName: 'incidents',
  secret: SECRET,
  sfn,
  now: () => now,
});
const resumed = () => sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);

beforeEach(async () => {
  dynamo = await freshTable('incidents');
  snsMock.reset();
  sfnMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
  sfnMock.on(SendTaskSuccessCommand).resolves({});
});

describe('the chat approval path (for Amazon Q Developer custom actions)', () => {
  it('the approval row carries the signed chat token; the chat card does not (no buttons deployed)', async () => {
    const id = await ask('inc-1', 'token-1');
    expect((await row(id)).chat).toMatch(new RegExp(`^inc-1/${id}/\\d{13}/[A-Za-z0-9_-]{43}$`));
    const card = chatCard(approvalNotice(await row(id), new Date(NOW)));
    expect(JSON.stringify(card)).not.toContain(String((await row(id)).chat).split('/')[3]);
    expect(card.metadata.enableCustomActions).toBe(false);
  });

  it('approve: the grant of exactly the asked request, the Task resumed once, the approver recorded', async () => {
    const id = await ask('inc-1', 'token-1');
    const { approve } = await buttons(id);
    expect(await decideInChat(approve, APPROVER, deps())).toEqual({
      outcome: 'approve',
      approvalId: id,
      incidentId: 'inc-1',
    });
    expect(resumed()).toHaveLength(1);
    expect(resumed()[0].taskToken).toBe('token-1');
    expect(JSON.parse(String(resumed()[0].output))).toMatchObject({
      approved: true,
      digest: DIGEST,
      decidedBy: { via: 'chat', approver: APPROVER },
    });
    const grant = (await dynamo.client.send(new GetCommand({ TableName: 'incidents', Key: grantKey(DIGEST) }))).Item;
    expect(grant).toMatchObject({ approvalId: id, decidedBy: { via: 'chat', approver: APPROVER } });
    expect(await row(id)).toMatchObject({ decision: 'approve', decidedBy: { via: 'chat', approver: APPROVER } });
  });

  it('a replayed press, and the e-mail link after chat decided, decide nothing more', async () => {
    const id = await ask('inc-1', 'token-1');
    const { approve, reject } = await buttons(id);
    await decideInChat(approve, APPROVER, deps());
    expect(await decideInChat(approve, APPROVER, deps())).toEqual({
      outcome: 'refused',
      reason: 'already answered: approve',
    });
    expect((await decideInChat(reject, 'AROAOTHER:mallory', deps())).outcome).toBe('refused');
    const message = String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message);
    const link = Object.fromEntries(new URL(String(/Review and decide: +(\S+)/.exec(message)?.[1])).searchParams);
    const page = await handleApprovalHttp(
      { method: 'GET', query: link, sourceIp: '203.0.113.10', userAgent: 'x' },
      deps(),
    );
    expect(page.statusCode).toBe(409);
    expect(resumed()).toHaveLength(1);
  });

  it('refuses an approval made for another incident, a forged token, and an expired one', async () => {
    const mine = await ask('inc-1', 'token-1');
    const other = await ask('inc-2', 'token-2');
    const { approve } = await buttons(mine);
    const theirs = (await buttons(other)).approve;
    // inc-2's signed token, relabelled as inc-1's: the signature binds the incident.
    const relabelled = theirs.replace('approve/inc-2/', 'approve/inc-1/');
    expect(await decideInChat(relabelled, APPROVER, deps())).toMatchObject({
      outcome: 'refused',
      reason: expect.stringMatching(/^invalid signature/),
    });
    // inc-1's token with inc-2's approval id: the signature binds the approval too.
    const swapped = approve.replace(mine, other);
    expect((await decideInChat(swapped, APPROVER, deps())).outcome).toBe('refused');
    const forged = `${approve.slice(0, -43)}${'A'.repeat(43)}`;
    expect((await decideInChat(forged, APPROVER, deps())).outcome).toBe('refused');
    expect(await decideInChat(approve, APPROVER, deps(NOW + 61 * 60_000))).toEqual({
      outcome: 'refused',
      reason: 'expired: no action was taken',
    });
    expect((await decideInChat('approve everything', APPROVER, deps())).outcome).toBe('refused');
    expect(resumed()).toEqual([]);
    // Each approval still waits for its own answer: inc-2's approval resumes only inc-2's Task.
    expect((await decideInChat(theirs, APPROVER, deps())).outcome).toBe('approve');
    expect(resumed().map((r) => r.taskToken)).toEqual(['token-2']);
  });
});
