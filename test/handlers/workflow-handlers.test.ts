import '../support/deployed-env.js';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  DescribeSubscriptionFiltersCommand,
  PutRetentionPolicyCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../lambdas/aws/door/node-commands.js';
import * as approvalCallback from '../../lambdas/handlers/approval-callback.js';
import * as approvalRequest from '../../lambdas/handlers/approval-request.js';
import * as decide from '../../lambdas/handlers/decide.js';
import * as door from '../../lambdas/handlers/door.js';
import * as kubernetes from '../../lambdas/handlers/kubernetes.js';
import * as logGroup from '../../lambdas/handlers/log-group-prerequisites.js';
import * as openIncident from '../../lambdas/handlers/open-incident.js';
import * as resolveNode from '../../lambdas/handlers/resolve-node.js';
import * as summarize from '../../lambdas/handlers/summarize.js';
import * as verify from '../../lambdas/handlers/verify.js';
import { simulatedProbe } from '../../local/node-adapters.js';
import { lambdaContext } from '../support/lambda-context.js';

/** Workflow and custom-resource functions as Lambda runs them: createHandler(deps), Powertools middleware, parser schema. */
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'x' };
const unused = () => {
  throw new Error('a refused event must not reach the domain');
};
/** Dependencies that throw when touched: a refused event must not reach them. */
const untouchable = new Proxy({}, { get: unused }) as never;

describe('log-group-prerequisites: createHandler(logs)', () => {
  const logs = new CloudWatchLogsClient({ region: 'eu-west-1', credentials: CREDENTIALS });
  const event = (RequestType: string) => ({
    RequestType,
    ResourceProperties: {
      ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:provider',
      LogGroupNames: ['/eks/prod-eu/ipamd', '/aws/containerinsights/prod-eu/dataplane'],
      DestinationArn: 'arn:aws:lambda:eu-west-1:111122223333:function:ingest',
      RetentionInDays: '90',
    },
  });

  it('makes every log group ready on Create (the properties arrive as strings)', async () => {
    const mock = mockClient(logs);
    mock.on(CreateLogGroupCommand).resolves({});
    mock.on(DescribeSubscriptionFiltersCommand).resolves({ subscriptionFilters: [] });
    mock.on(PutRetentionPolicyCommand).resolves({});
    const out = await logGroup.createHandler(logs)(event('Create'), lambdaContext());
    expect(out).toEqual({ PhysicalResourceId: 'log-groups-ready', Data: { Created: '2' } });
    expect(mock.commandCalls(CreateLogGroupCommand).map((c) => c.args[0].input.logGroupName)).toEqual([
      '/eks/prod-eu/ipamd',
      '/aws/containerinsights/prod-eu/dataplane',
    ]);
    expect(mock.commandCalls(PutRetentionPolicyCommand)[0].args[0].input.retentionInDays).toBe(90);
    mock.restore();
  });

  it('changes nothing on Delete', async () => {
    const mock = mockClient(logs);
    const out = await logGroup.createHandler(logs)(event('Delete'), lambdaContext());
    expect(out).toEqual({ PhysicalResourceId: 'log-groups-ready' });
    expect(mock.calls()).toHaveLength(0);
    mock.restore();
  });
});

describe('verify: createHandler()', () => {
  // The door's record of the probe after the repair: a healthy AL2023 node (the local runtime's node stand-in).
  const command = outcomeOf({ status: 'Success', stdout: simulatedProbe([]) }, { probe: true });
  const doorState = {
    call: {
      slot: 'verifyProbe',
      returnTo: 'verify',
      request: {
        action: { kind: 'probe-node', node: { instanceId: 'i-0a1b2c3d4e5f60718' } },
        disposition: 'auto',
        description: 'probe the node again',
        reason: 'a read',
      },
    },
    done: {
      verifyProbe: {
        slot: 'verifyProbe',
        kind: 'probe-node',
        line: 'probe-node on i-0a1b2c3d4e5f60718',
        digest: 'd'.repeat(64),
        outcome: 'done',
        reason: 'probe-node: Success',
        at: '2026-11-30T10:03:00Z',
        command,
      },
    },
    lastAction: { slot: 'act', kind: 'repair-pause-image', sentAt: '2026-11-30T10:00:00Z' },
  };

  it("verifies on the node's own probe: no table read, log lines are no evidence", async () => {
    const out = await verify.createHandler()(
      { incidentKey: 'k', class: 'sandbox-image', door: doorState },
      lambdaContext(),
    );
    expect(out).toMatchObject({ verified: true, reason: expect.stringContaining("the node's own probe") });
  });
});

describe('an event the schema refuses never reaches the domain, and fails with a named error', () => {
  it.each([
    ['door', () => door.createHandler(unused)],
    ['open-incident', () => openIncident.createHandler(unused)],
    ['verify', () => verify.createHandler()],
    ['kubernetes', () => kubernetes.createHandler({ endpoint: unused, tokens: { get: unused, invalidate: unused } })],
    ['resolve-node', () => resolveNode.createHandler({ ec2: { send: unused }, iam: { send: unused } as never })],
    ['log-group-prerequisites', () => logGroup.createHandler({ send: unused } as never)],
    ['approval-request', () => approvalRequest.createHandler(unused)],
    ['approval-callback', () => approvalCallback.createHandler({ page: unused, keys: untouchable, now: Date.now })],
    ['decide', () => decide.createHandler(unused)],
    ['summarize', () => summarize.createHandler(unused)],
  ])('%s', async (_name, create) => {
    await expect(create()({ unexpected: 'event' }, lambdaContext())).rejects.toMatchObject({ name: 'EventParseError' });
  });

  it('ingest (its module reads the function environment at import)', async () => {
    Object.assign(process.env, {
      INCIDENT_TABLE_NAME: 'incidents',
      EVIDENCE_BUCKET_NAME: 'evidence-bucket',
      INCIDENT_WINDOW_MINUTES: '30',
    });
    const ingest = await import('../../lambdas/handlers/ingest.js');
    await expect(ingest.createHandler(async () => untouchable)({ records: [] }, lambdaContext())).rejects.toMatchObject(
      {
        name: 'EventParseError',
      },
    );
  });
});
