import { CloudTrailClient, DescribeTrailsCommand, GetTrailStatusCommand } from '@aws-sdk/client-cloudtrail';
import {
  CloudWatchLogsClient,
  FilterLogEventsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cloudwatch-logs';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkSignals, type SignalCheckDeps } from '../../lambdas/aws/ingest/signal-check.js';
import { eventsStateKey } from '../../lambdas/core/contract/incident-table.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const logs = new CloudWatchLogsClient({ region: 'eu-west-1' });
const trails = new CloudTrailClient({ region: 'eu-west-1' });
const logsMock = mockClient(logs);
const trailMock = mockClient(trails);
let table: LocalTable;
let mails: { subject: string; message: string }[];
let seq = 0;

/** The account: which log groups exist and carry lines, whether a trail logs. */
function account(o: {
  dataplane?: 'absent' | 'silent' | 'ok';
  application?: 'absent' | 'silent' | 'ok';
  trail?: boolean;
}) {
  logsMock.reset();
  trailMock.reset();
  logsMock.on(FilterLogEventsCommand).callsFake((i) => {
    const state = String(i.logGroupName).endsWith('/dataplane') ? o.dataplane : o.application;
    if (state === 'absent' || state === undefined)
      throw new ResourceNotFoundException({ message: 'The specified log group does not exist.', $metadata: {} });
    return state === 'ok' ? { events: [{ timestamp: NOW - 3_600_000, message: 'x' }] } : { events: [] };
  });
  trailMock.on(DescribeTrailsCommand).resolves({
    trailList: [{ Name: 'org', TrailARN: 'arn:aws:cloudtrail:us-east-1:999:trail/org', IsMultiRegionTrail: true }],
  });
  trailMock.on(GetTrailStatusCommand).resolves({ IsLogging: o.trail ?? true });
}

/** The events reader read the cluster's events 20 s before `now`. */
async function readerAlive(now: number): Promise<void> {
  await table.client.send(
    new PutCommand({
      TableName: table.name,
      Item: { ...eventsStateKey('prod-eu'), lastAttemptAt: now - 20_000, lastReadAt: now - 20_000 },
    }),
  );
}

/** One hourly check at `now` while the events reader keeps reading. */
async function checkAt(now: number) {
  await readerAlive(now);
  return checkSignals(deps(now));
}

function deps(now = NOW): SignalCheckDeps {
  return {
    clusters: ['prod-eu'],
    region: 'eu-west-1',
    logs,
    cloudtrail: trails,
    ddb: table.client,
    tableName: table.name,
    notify: async (subject, message) => {
      mails.push({ subject, message });
    },
    now: () => now,
  };
}

beforeEach(async () => {
  seq += 1;
  table = await freshTable(`signals-${seq}`);
  mails = [];
  await readerAlive(NOW);
});

describe('signal self-check (dynalite, recorded CloudWatch Logs and CloudTrail answers)', { timeout: 60_000 }, () => {
  it('a cluster without a dataplane group: one notification, then none on every later check', async () => {
    account({ dataplane: 'absent', application: 'ok' });
    const [first] = await checkSignals(deps());
    expect(first.readings.map((r) => [r.signal, r.status])).toEqual([
      ['kubernetes-events', 'ok'],
      ['dataplane-logs', 'absent'],
      ['application-logs', 'ok'],
      ['cloudtrail', 'ok'],
    ]);
    expect(mails).toEqual([
      {
        subject: '[pod-doctor] dataplane-logs absent on prod-eu',
        message: expect.stringContaining(
          'dataplane-logs absent on prod-eu: detection continues from kubernetes-events, application-logs, cloudtrail',
        ),
      },
    ]);
    for (let hour = 1; hour <= 24; hour += 1) await checkAt(NOW + hour * 3_600_000);
    expect(mails).toHaveLength(1);
  });

  it('notifies a signal going silent once and coming back once', async () => {
    account({ dataplane: 'ok', application: 'ok' });
    await checkSignals(deps());
    expect(mails).toEqual([]);
    account({ dataplane: 'silent', application: 'ok' });
    await checkAt(NOW + 3_600_000);
    await checkAt(NOW + 7_200_000);
    account({ dataplane: 'ok', application: 'ok' });
    await checkAt(NOW + 10_800_000);
    expect(mails.map((m) => m.subject)).toEqual([
      '[pod-doctor] dataplane-logs silent on prod-eu',
      '[pod-doctor] dataplane-logs back on prod-eu',
    ]);
  });

  it('two checks racing on the same change notify once (the conditional write decides)', async () => {
    account({ dataplane: 'ok', application: 'ok', trail: true });
    await checkSignals(deps());
    account({ dataplane: 'ok', application: 'ok', trail: false });
    await Promise.all([checkSignals(deps(NOW + 60_000)), checkSignals(deps(NOW + 60_000))]);
    expect(mails.map((m) => m.subject)).toEqual(['[pod-doctor] cloudtrail silent on prod-eu']);
  });

  it('a signal it cannot read is unknown and notifies nothing', async () => {
    account({ dataplane: 'ok', application: 'ok' });
    logsMock
      .on(FilterLogEventsCommand)
      .rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' }));
    const [r] = await checkSignals(deps());
    expect(r.readings.find((x) => x.signal === 'dataplane-logs')).toMatchObject({
      status: 'unknown',
      detail: expect.stringContaining('AccessDeniedException'),
    });
    expect(mails).toEqual([]);
  });

  it('a cluster whose API pod-doctor does not reach (kubernetesApi: false): events absent, said once', async () => {
    account({ dataplane: 'ok', application: 'ok' });
    // No reader state: the reader never reads such a cluster.
    await table.client.send(new DeleteCommand({ TableName: table.name, Key: eventsStateKey('prod-eu') }));
    const [r] = await checkSignals({ ...deps(), withoutApi: ['prod-eu'] });
    expect(r.readings[0]).toMatchObject({ signal: 'kubernetes-events', status: 'absent' });
    await checkSignals({ ...deps(NOW + 3_600_000), withoutApi: ['prod-eu'] });
    expect(mails.map((m) => m.subject)).toEqual(['[pod-doctor] kubernetes-events absent on prod-eu']);
    expect(mails[0].message).toContain('kubernetesApi is false');
  });

  it('events not readable for a quarter of an hour: the events signal goes silent', async () => {
    account({ dataplane: 'absent', application: 'absent' });
    await table.client.send(
      new PutCommand({
        TableName: table.name,
        Item: {
          ...eventsStateKey('prod-eu'),
          lastAttemptAt: NOW,
          lastReadAt: NOW - 20 * 60_000,
          lastError: 'KubernetesForbiddenError: events is forbidden',
        },
      }),
    );
    await checkSignals(deps());
    expect(mails.find((m) => m.subject.includes('kubernetes-events'))?.message).toMatch(
      /^kubernetes-events silent for 15 min on prod-eu: detection continues from cloudtrail\. events not readable since/,
    );
  });
});
