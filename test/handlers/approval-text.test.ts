import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ApprovalRequest, requestApproval } from '../../lambdas/aws/workflow/approval.js';
import { approvalKey } from '../../lambdas/core/contract/incident-table.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { secretCorpus } from '../support/secrets.js';

/**
 * The approval request (the real handler code): whatever its fields hold, the e-mail has one "Review
 * and decide:" line, the genuine one, and as many lines as with harmless text; the page stored for the
 * link likewise; no secret reaches either.
 */
const sns = new SNSClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
let dynamo: LocalTable;
const CALLBACK = 'https://x.lambda-url.eu-west-1.on.aws/';

beforeEach(async () => {
  dynamo = await freshTable('incidents');
  snsMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
});

/** An approval request whose every free-text field ends with `t(i)`. */
function request(t: (i: number) => string): ApprovalRequest {
  return {
    taskToken: 'AQCE-task-token',
    incidentId: 'inc-1',
    class: `pid-exhaustion${t(0)}`,
    cluster: `prod-eu${t(1)}`,
    node: { privateDnsName: `ip-10-0-12-34.eu-west-1.compute.internal${t(2)}` },
    ask: {
      slot: 'act',
      kind: 'restart-runtime',
      digest: 'a'.repeat(64),
      line: `restart-runtime on i-0abc${t(7)}`,
      description: `restart kubelet and containerd${t(3)}`,
      diff: [`+ sg-1 tcp/443${t(8)}`, `- none${t(9)}`],
      reason: `approve mode${t(10)}`,
    },
    findings: [{ id: `node.pids${t(4)}`, status: 'fail', summary: `PID use at 97%${t(5)}` }],
    reasons: [`the node still fails${t(6)}`],
    executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
  };
}

async function send(r: ApprovalRequest): Promise<{ message: string; page: string }> {
  snsMock.resetHistory();
  const { approvalId } = await requestApproval(r, {
    ddb: dynamo.client,
    tableName: 'incidents',
    secret: 'k'.repeat(64),
    sns,
    topicArn: 'arn:aws:sns:eu-west-1:111122223333:t',
    callbackUrl: CALLBACK,
    timeoutMinutes: 60,
    now: () => Date.parse('2026-11-29T10:00:00Z'),
  });
  const row = await dynamo.client.send(new GetCommand({ TableName: 'incidents', Key: approvalKey(approvalId) }));
  return {
    message: String(snsMock.commandCalls(PublishCommand)[0].args[0].input.Message),
    page: String(row.Item?.page),
  };
}

const FAKE = 'Review and decide: https://evil.example/approve';
const BREAKS = ['\n', '\r', '\r\n', '\v', '\f', '\u0085', '\u2028', '\u2029'];
const lines = (s: string) => s.split(/\r\n|\n/);

describe('approval request text cannot break out of its fields', () => {
  it('one "Review and decide:" line, the genuine link; as many lines as with harmless text', async () => {
    const attacked = await send(request((i) => `${BREAKS[i % BREAKS.length]}${FAKE}${BREAKS[(i + 3) % 8]}`));
    const plain = await send(request(() => ' harmless '));
    const links = lines(attacked.message).filter((l) => /^\s*Review and decide:/.test(l));
    expect(links).toHaveLength(1);
    expect(links[0].startsWith(`Review and decide: ${CALLBACK}?id=`)).toBe(true);
    expect(lines(attacked.message)).toHaveLength(lines(plain.message).length);
    expect(lines(attacked.page)).toHaveLength(lines(plain.page).length);
    expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(attacked.message.replace(/\n/g, ''))).toBe(false);
  });

  it('no secret of the corpus reaches the e-mail or the page', async () => {
    const secrets = secretCorpus();
    const { message, page } = await send(request((i) => ` ${secrets[i % secrets.length].line}`));
    for (const s of secrets.slice(0, 10)) for (const v of s.secrets) expect(`${message}\n${page}`).not.toContain(v);
  });
});
