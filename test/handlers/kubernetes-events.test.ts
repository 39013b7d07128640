import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IncidentStore } from '../../lambdas/aws/ingest/incident-store.js';
import { type EventsDeps, readAllClusters } from '../../lambdas/aws/kubernetes/events-service.js';
import { EventsStateStore } from '../../lambdas/aws/kubernetes/events-state.js';
import { sweepClusters } from '../../lambdas/aws/kubernetes/sweep.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { eventsStateKey } from '../../lambdas/core/contract/incident-table.js';
import type { Reject } from '../../lambdas/core/incident/ingest.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';

/**
 * The events reader against the local HTTPS API server (list, watch with resourceVersions,
 * bookmarks, 410 after compaction, the shipped RBAC) and the dynalite incident table.
 */
type Obj = Record<string, unknown>;
const server = new KubeApiServer({ groups: ['pod-doctor'] });
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
let endpoint = '';
let table: LocalTable;
const started: { id: string; input: Obj; at: number }[] = [];
const kept: Reject[][] = [];
let seq = 0;

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(async () => {
  seq += 1;
  table = await freshTable(`events-${seq}`);
  server.cluster = recordedCluster();
  server.faults.length = 0;
  server.coreEvents.reset();
  started.length = 0;
  kept.length = 0;
});

/** The recorded pause-image 401 event of pod `name` (seed:000), as kubelet creates it. */
function pauseEvent(name = 'api-5d8f7c9b6-x2kq9', over: Obj = {}): Obj {
  const [e] = recordedCluster().events['team-a/api-5d8f7c9b6-x2kq9'] as Obj[];
  return {
    ...e,
    metadata: { name: `${name}.17a000f`, namespace: 'team-a', uid: `uid-${name}` },
    involvedObject: { ...(e.involvedObject as Obj), name },
    ...over,
  };
}

function deps(over: Partial<EventsDeps> = {}, clusterName = 'prod'): EventsDeps {
  const tokens = new EksTokenCache({ accessKeyId: 'AKID', secretAccessKey: 'x' });
  return {
    clusters: [clusterName],
    api: async (name) =>
      new ClusterApi({ name, region: 'us-east-2', endpoint, certificateAuthorityData: server.caData }, tokens, {
        sleep: async () => {},
      }),
    state: new EventsStateStore(table.client, table.name),
    incidents: new IncidentStore(table.client, { tableName: table.name, windowMs: 30 * 60_000, retentionDays: 365 }),
    workflow: {
      start: async (id, input) => {
        started.push({ id, input: JSON.parse(input), at: Date.now() });
        return `arn:aws:states:us-east-2:111122223333:execution:wf:${id}`;
      },
    },
    rejects: {
      keep: async (rejects) => {
        kept.push([...rejects]);
        return rejects.length ? `rejected/${kept.length}.jsonl` : undefined;
      },
    },
    now: Date.now,
    windowMs: 30 * 60_000,
    reader: { watchSeconds: 2, flushMs: 50, backoffMs: 20 },
    ...over,
  };
}

const state = async () => (await table.get(eventsStateKey('prod'))) ?? {};

describe('Kubernetes events reader (local API server, dynalite)', { timeout: 60_000 }, () => {
  it('lists the Warning events there are, opens their incident with the node instance, and saves where it read to', async () => {
    server.coreEvents.write(pauseEvent());
    server.coreEvents.write({
      ...pauseEvent('web-1'),
      type: 'Normal',
      reason: 'Pulled',
      message: 'Successfully pulled',
    });
    const [r] = await readAllClusters(deps(), 'req-1');
    expect(r).toMatchObject({ cluster: 'prod', readable: true, counts: { listed: 1, classified: 1 } });
    expect(started).toHaveLength(1);
    expect(started[0].input).toMatchObject({
      class: 'sandbox-image',
      cluster: 'prod',
      signals: ['kubernetes-events'],
      entities: { node: NODE, instanceId: 'i-0123456789abcdef0', pod: 'api-5d8f7c9b6-x2kq9' },
      // The node is the pod's binding (spec.nodeName of the pod read from the API), not the event's host.
      factSources: { node: 'pod-binding', instanceId: 'node-object' },
    });
    expect(await state()).toMatchObject({ resourceVersion: String(server.coreEvents.resourceVersion), leaseUntil: 0 });
  });

  it('starts the workflow within a second of a Warning event arriving on the watch', async () => {
    await readAllClusters(deps({ reader: { watchSeconds: 1.5, flushMs: 50 } }), 'req-0');
    const run = readAllClusters(deps({ reader: { watchSeconds: 3, flushMs: 50 } }), 'req-1');
    await new Promise((r) => setTimeout(r, 500));
    const written = Date.now();
    server.coreEvents.write(pauseEvent());
    const [r] = await run;
    expect(r.counts).toMatchObject({ watched: 1, classified: 1, listed: 0 });
    expect(started).toHaveLength(1);
    expect(started[0].at - written).toBeLessThan(1000);
  });

  it('counts a series once: the updates of one event (count 1 → 16) and the same event in the next read', async () => {
    const run = readAllClusters(deps({ reader: { watchSeconds: 3, flushMs: 50 } }), 'req-1');
    await new Promise((r) => setTimeout(r, 300));
    for (let count = 1; count <= 16; count += 1) server.coreEvents.write(pauseEvent(undefined, { count }));
    const [r] = await run;
    expect(r.counts).toMatchObject({ watched: 16, classified: 1, duplicates: 15 });
    const open = (await table.scan()).filter((i) => i.sk === 'OPEN');
    expect(open.map((i) => i.occurrences)).toEqual([1]);
    // Unrelated writes, then etcd compacts them away: the saved version is too old (410), and the
    // fresh list reads the same event again: still counted once.
    server.coreEvents.write({
      ...pauseEvent('web-9'),
      type: 'Normal',
      reason: 'Pulled',
      message: 'Successfully pulled',
    });
    server.coreEvents.compact();
    const [again] = await readAllClusters(deps(), 'req-2');
    expect(again.counts).toMatchObject({ expired: 1, relists: 1, listed: 1, classified: 0, duplicates: 1 });
    expect((await table.scan()).filter((i) => i.sk === 'OPEN').map((i) => i.occurrences)).toEqual([1]);
    expect(started).toHaveLength(1);
  });

  it('answers a 410 in the stream (compacted history) with a fresh list and reads what happened meanwhile', async () => {
    await readAllClusters(deps({ reader: { watchSeconds: 1.5 } }), 'req-1');
    server.coreEvents.write(pauseEvent());
    server.coreEvents.compact();
    const [r] = await readAllClusters(deps(), 'req-2');
    expect(r.counts).toMatchObject({ expired: 1, relists: 1, listed: 1, classified: 1 });
    expect(started).toHaveLength(1);
  });

  it('answers an HTTP 410 on the watch the same way', async () => {
    await readAllClusters(deps({ reader: { watchSeconds: 1.5 } }), 'req-1');
    server.coreEvents.write(pauseEvent());
    server.faults.push({ path: '/api/v1/events', status: 410, onWatch: true });
    const [r] = await readAllClusters(deps(), 'req-2');
    expect(r.counts).toMatchObject({ expired: 1, relists: 1, classified: 1 });
  });

  it('an API server answering 500 and 429 throughout: no crash, errors counted, nothing lost once it answers again', async () => {
    await readAllClusters(deps({ reader: { watchSeconds: 1.5 } }), 'req-1');
    const before = (await state()).resourceVersion;
    server.coreEvents.write(pauseEvent());
    server.faults.push(
      { path: '/api/v1/events', status: 500, times: 1000 },
      { path: '/api/v1/events', status: 429, times: 1000, headers: { 'retry-after': '0' } },
    );
    const [down] = await readAllClusters(deps(), 'req-2');
    expect(down).toMatchObject({ readable: false, error: expect.stringContaining('500') });
    expect(down.counts.apiErrors).toBeGreaterThan(1);
    expect(started).toEqual([]);
    expect(await state()).toMatchObject({ resourceVersion: before, lastError: expect.stringContaining('500') });
    // The sweep does not depend on the events stream: it catches the stuck pods meanwhile.
    const swept = await sweepClusters({ ...deps(), now: () => Date.parse('2026-11-30T10:30:00Z') });
    expect(swept.incidentsOpened.length).toBeGreaterThan(0);
    server.faults.length = 0;
    const [up] = await readAllClusters(deps(), 'req-3');
    expect(up).toMatchObject({ readable: true, counts: { watched: 1, classified: 1 } });
  });

  it('keeps and counts an event naming a pod of another namespace, reads a 1 MB message, and goes on', async () => {
    const forged = pauseEvent('web-2', {
      involvedObject: { kind: 'Pod', namespace: 'kube-system', name: 'coredns-1', apiVersion: 'v1' },
    });
    server.coreEvents.write(forged);
    server.coreEvents.write(
      pauseEvent('web-3', { message: `${String(pauseEvent().message)} ${'y'.repeat(1024 * 1024)}` }),
    );
    const [r] = await readAllClusters(deps(), 'req-1');
    expect(r.counts).toMatchObject({ received: 2, rejected: 1, truncated: 1, classified: 1, uncorroborated: 1 });
    // The forged one is rejected; web-3 does not exist, so its event is kept as not corroborated.
    expect(kept.flat()).toEqual([
      expect.objectContaining({
        reason: 'event in namespace team-a names pod kube-system/coredns-1 of another namespace',
      }),
      expect.objectContaining({
        reason: 'not evaluated: limit uncorroborated',
        record: expect.stringContaining('not corroborated: pod team-a/web-3 does not exist'),
      }),
    ]);
    expect(r.rejectKeys).toHaveLength(1);
    expect(r.droppedKeys).toHaveLength(1);
    expect(started).toEqual([]);
  });

  it('lets one invocation read a cluster at a time (lease)', async () => {
    const [a, b] = await Promise.all([
      readAllClusters(deps({ reader: { watchSeconds: 1.5 } }), 'req-a'),
      readAllClusters(deps({ reader: { watchSeconds: 1.5 } }), 'req-b'),
    ]);
    expect([a[0].skipped, b[0].skipped].filter(Boolean)).toEqual([
      'another invocation reads this cluster (lease held)',
    ]);
  });

  it('reports a cluster whose RBAC does not let it watch events as unreadable, without retrying forever', async () => {
    const denied = new KubeApiServer({ groups: ['nobody'] });
    const url = await denied.start();
    try {
      const tokens = new EksTokenCache({ accessKeyId: 'AKID', secretAccessKey: 'x' });
      const api = async (name: string) =>
        new ClusterApi({ name, region: 'us-east-2', endpoint: url, certificateAuthorityData: denied.caData }, tokens);
      const [r] = await readAllClusters(deps({ api }), 'req-1');
      expect(r).toMatchObject({ readable: false, error: expect.stringContaining('KubernetesForbiddenError') });
      expect(r.counts.apiErrors).toBe(0);
    } finally {
      await denied.stop();
    }
  });
});
