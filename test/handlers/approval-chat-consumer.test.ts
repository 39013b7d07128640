import '../support/deployed-env.js';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { requestApproval } from '../../lambdas/aws/workflow/approval.js';
import { approvalKey } from '../../lambdas/core/contract/incident-table.js';
import { createHandler } from '../../lambdas/handlers/approval-chat.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { lambdaContext } from '../support/lambda-context.js';

const SECRET = 'k'.repeat(64);
const OLD = 'o'.repeat(64);
const NOW = Date.now();
const APPROVER = 'AROAEXAMPLEROLEID123:alice@example.com';
const sns = new SNSClient({ region: 'eu-west-1' });
const sfn = new SFNClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const sfnMock = mockClient(sfn);
let dynamo: LocalTable;

async function ask(incidentId: string, taskToken: string, secret = SECRET): Promise<string> {
  const ask = {
    slot: 'followUp',
    kind: 'restart-runtime',
    digest: '5'.repeat(64),
    line: 'restart-runtime on ip-10-0-12-34.eu-west-1.compute.internal',
    description: 'restart kubelet and containerd',
    diff: [],
    reason: 'disruptive action: always asks first',
  } as const;
  const input = {
    taskToken,
    incidentId,
    class: 'pid-exhaustion',
    cluster: 'prod-eu',
    node: { privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
    ask,
    findings: [],
    executionArn: `arn:aws:states:eu-west-1:111122223333:execution:wf:${incidentId}`,
  };
  const ctx = {
    ddb: dynamo.client,
    tableName: 'incidents',
    secret,
    sns,
    topicArn: 'arn:aws:sns:eu-west-1:111122223333:t',
    callbackUrl: 'https://x.lambda-url.eu-west-1.on.aws/',
    timeoutMinutes: 60,
    now: () => NOW,
  };
  return (await requestApproval(input as Parameters<typeof requestApproval>[0], ctx)).approvalId;
}

const token = async (id: string) =>
  String((await dynamo.client.send(new GetCommand({ TableName: 'incidents', Key: approvalKey(id) }))).Item?.chat);

/** The handler with keys that rotate from `first` to SECRET when read again. */
function consumer(first = SECRET) {
  let current = first;
  return createHandler({
    keys: {
      get: async () => ({ current }),
      refresh: async () => {
        current = SECRET;
        return { current, previous: OLD };
      },
    },
    deps: async (keys) => ({
      ddb: dynamo.client,
      tableName: 'incidents',
      secret: keys.current,
      previousSecret: keys.previous,
      sfn,
      now: Date.now,
    }),
  });
}

/** An SQS batch as Lambda's event source mapping delivers it; SenderId is stamped by SQS. */
const batch = (...bodies: string[]) => ({
  Records: bodies.map((body, i) => ({
    messageId: `m-${i}`,
    receiptHandle: 'r',
    body,
    attributes: { SenderId: APPROVER, ApproximateReceiveCount: '1', SentTimestamp: String(NOW) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:111122223333:chat-approvals',
    awsRegion: 'eu-west-1',
  })),
});
const resumed = () => sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);

beforeEach(async () => {
  dynamo = await freshTable('incidents');
  snsMock.reset();
  sfnMock.reset();
  snsMock.on(PublishCommand).resolves({ MessageId: 'm-1' });
  sfnMock.on(SendTaskSuccessCommand).resolves({});
});

describe('the chat approval queue consumer', () => {
  it('a press resumes its Task once with the SQS sender as approver; a replay and junk in the same batch are dropped, not retried', async () => {
    const id = await ask('inc-1', 'token-1');
    const press = `approve/${await token(id)}`;
    const r = await consumer()(batch(press, press, 'approve everything'), lambdaContext());
    expect(r).toEqual({ batchItemFailures: [] });
    expect(resumed()).toHaveLength(1);
    expect(JSON.parse(String(resumed()[0].output))).toMatchObject({ decidedBy: { via: 'chat', approver: APPROVER } });
  });

  it('a token signed with a key rotated in since the keys were read is checked again with fresh keys', async () => {
    const id = await ask('inc-1', 'token-1');
    await consumer(OLD)(batch(`approve/${await token(id)}`), lambdaContext());
    expect(resumed().map((x) => x.taskToken)).toEqual(['token-1']);
  });

  it('a press Step Functions could not take goes back to the queue (a batch item failure), the approval still open', async () => {
    sfnMock.on(SendTaskSuccessCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    const id = await ask('inc-1', 'token-1');
    const r = await consumer()(batch(`approve/${await token(id)}`), lambdaContext());
    expect(r).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-0' }] });
  });
});
