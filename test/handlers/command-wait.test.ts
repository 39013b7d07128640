import { SendTaskSuccessCommand, SFNClient, TaskTimedOut } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { awaitCommand, commandStatusChanged, commandWaitInputSchema } from '../../lambdas/aws/workflow/command-wait.js';
import { commandStatusEventSchema } from '../../lambdas/core/door/command-events.js';
import { statusChangeEvent } from '../../local/command-completion.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

const sfn = new SFNClient({ region: 'eu-west-1' });
const sfnMock = mockClient(sfn);
const COMMAND = 'e8d3c0e4-71f7-4491-898f-c9b35bee5f3b';
const TOKEN = 'AQCE-task-token-of-the-await';
let table: LocalTable;
const deps = () => ({ ddb: table.client, tableName: 'incidents', sfn, now: () => 1_795_946_400_000 });

/** The documented example event (monitoring-systems-manager-event-examples), for pod-doctor's probe document. */
const documented = (status: string) => ({
  version: '0',
  id: '4780e1b8-f56b-4de5-95f2-95db273d1602',
  'detail-type': 'EC2 Command Invocation Status-change Notification',
  source: 'aws.ssm',
  account: '123456789012',
  time: '2016-07-10T21:51:32Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111'],
  detail: {
    'command-id': COMMAND,
    'document-name': 'PodDoctor-probeNode-1A2B3C',
    'instance-id': 'i-9bb89e2b',
    'requested-date-time': '2016-07-10T21:51:30.049Z',
    status,
  },
});

beforeEach(async () => {
  table = await freshTable('incidents');
  sfnMock.reset();
  sfnMock.on(SendTaskSuccessCommand).resolves({});
});

const resumes = () => sfnMock.commandCalls(SendTaskSuccessCommand).map((c) => c.args[0].input);

describe('a node command resumes the workflow by its completion event', () => {
  it('reads the documented status-change event; a non-final status or another source is refused', () => {
    expect(commandStatusEventSchema.parse(documented('Success')).detail['command-id']).toBe(COMMAND);
    expect(() => commandStatusEventSchema.parse(documented('InProgress'))).toThrow();
    expect(() => commandStatusEventSchema.parse({ ...documented('Success'), source: 'tenant.app' })).toThrow();
    // The handler tells the two sides apart: the event, or the await's token.
    expect('detail' in commandWaitInputSchema.parse(documented('Failed'))).toBe(true);
    expect(commandWaitInputSchema.parse({ taskToken: TOKEN, commandId: COMMAND, instanceId: 'i-9bb89e2b' })).toEqual({
      taskToken: TOKEN,
      commandId: COMMAND,
      instanceId: 'i-9bb89e2b',
    });
  });

  it('the token first, then the event: the event resumes the task once, with the command and its status', async () => {
    expect(await awaitCommand({ taskToken: TOKEN, commandId: COMMAND, instanceId: 'i-9bb89e2b' }, deps())).toEqual({
      resumed: false,
      commandId: COMMAND,
    });
    expect(resumes()).toEqual([]);
    const r = await commandStatusChanged(commandStatusEventSchema.parse(documented('Success')), deps());
    expect(r.resumed).toBe(true);
    expect(resumes()).toEqual([
      { taskToken: TOKEN, output: JSON.stringify({ commandId: COMMAND, status: 'Success' }) },
    ]);
  });

  it('a command that ends before its token is stored: the await resumes itself at once (the event is not lost)', async () => {
    expect((await commandStatusChanged(commandStatusEventSchema.parse(documented('Failed')), deps())).resumed).toBe(
      false,
    );
    expect(resumes()).toEqual([]);
    const r = await awaitCommand({ taskToken: TOKEN, commandId: COMMAND, instanceId: 'i-9bb89e2b' }, deps());
    expect(r.resumed).toBe(true);
    expect(resumes()).toEqual([{ taskToken: TOKEN, output: JSON.stringify({ commandId: COMMAND, status: 'Failed' }) }]);
  });

  it('an event for a command no workflow waits for resumes nothing; the rendezvous expires (TTL)', async () => {
    await commandStatusChanged(
      commandStatusEventSchema.parse(
        statusChangeEvent({ commandId: COMMAND, instanceId: 'i-0a1b2c3d4e5f60718', document: 'd', status: 'Success' }),
      ),
      deps(),
    );
    expect(resumes()).toEqual([]);
    const item = await table.get({ pk: `COMMAND#${COMMAND}`, sk: 'WAIT' });
    expect(item?.expiresAt).toBe(1_795_946_400 + 2 * 86_400);
  });

  it('a task that already timed out (the fallback check came first) is not an error', async () => {
    sfnMock.on(SendTaskSuccessCommand).rejects(new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} }));
    await awaitCommand({ taskToken: TOKEN, commandId: COMMAND, instanceId: 'i-9bb89e2b' }, deps());
    const r = await commandStatusChanged(commandStatusEventSchema.parse(documented('TimedOut')), deps());
    expect(r).toEqual({ resumed: false, commandId: COMMAND });
  });
});
