import { request } from 'node:https';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventsClient, writeBack } from '../../lambdas/aws/door/event-writer.js';
import { reportEvents, reportingInstanceOf } from '../../lambdas/aws/door/report-events.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { clusterEvents, microTime, type WriteBackNotice } from '../../lambdas/core/voices/cluster-events.js';
import { KubeApiServer } from '../../local/kube-api-server.js';

/**
 * The write-back against the local API server: events.k8s.io/v1 as the API server validates, stores
 * and patches them, the shipped RBAC manifest deciding who may write them.
 */
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const T0 = new Date('2026-12-01T23:00:00.000Z');
const server = new KubeApiServer();
let endpoint = '';

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.events.stored.clear();
  server.forbidden.length = 0;
  server.faults.length = 0;
  server.seen.length = 0;
});

const api = (target = server, url = endpoint) =>
  new ClusterApi(
    { name: 'prod', region: 'us-east-2', endpoint: url, certificateAuthorityData: target.caData },
    new EksTokenCache(CREDS),
    { sleep: async () => {} },
  );

const notice: WriteBackNotice = {
  incidentId: 'prod/cni-ipam-exhausted/ip-192-168-149-143',
  class: 'cni-ipam-exhausted',
  cause: 'cni-ipam-exhausted: no free IP on the node; network.subnet-free: 0 free IPv4 in subnet-0abc1234',
  evidence: ['failed to assign an IP address to container'],
  actions: ['restart-aws-node: verified'],
  links: [{ label: 'summary', url: 's3://evidence/incidents/prod/summary.json' }],
};
const targets = {
  node: { name: NODE, uid: 'node-uid-1' },
  pods: [{ namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2', uid: '3b1f6c52-0f4e-4d55-9f3b-1a2b3c4d5e01' }],
};
const desired = (at: Date) => clusterEvents(notice, targets, 'pod-doctor-us-east-2', at);

/** A request with pod-doctor's credentials as anyone holding them could send it. */
function raw(method: string, path: string, body?: unknown, contentType = 'application/json') {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      `${endpoint}${path}`,
      { method, ca: server.cert, headers: { 'content-type': contentType } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('writing an incident back to the cluster as events.k8s.io/v1 events', () => {
  it('creates the cause and the action on the node and the pod, readable back as the API stores them', async () => {
    const r = await writeBack(eventsClient(api()), notice.incidentId, desired(T0), T0);
    expect(r).toMatchObject({ series: [], suppressed: [], failed: [] });
    expect(r.created).toHaveLength(4);
    expect(server.forbidden).toEqual([]);
    const stored = server.events.all();
    expect(
      stored.map((e) => [
        (e.regarding as { kind: string }).kind,
        (e.metadata as { namespace: string }).namespace,
        e.reason,
      ]),
    ).toEqual([
      ['Node', 'default', 'Diagnosed'],
      ['Node', 'default', 'ActionVerified'],
      ['Pod', 'default', 'Diagnosed'],
      ['Pod', 'default', 'ActionVerified'],
    ]);
    expect(stored[0]).toMatchObject({ reportingController: 'pod-doctor', eventTime: '2026-12-01T23:00:00.000000Z' });
    expect(stored[0].note).toMatch(/^cni-ipam-exhausted: no free IP on the node; .* summary: s3:\/\/evidence\//);
    const pod = await raw(
      'GET',
      `/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name=nginx-7cdbb5f49f-2p6p2`,
    );
    expect((pod.body.items as unknown[]).length).toBe(2);
  });

  it('writes nothing again within 5 minutes, then continues each event as a series (count 2, then 3)', async () => {
    const client = eventsClient(api());
    await writeBack(client, notice.incidentId, desired(T0), T0);
    const soon = new Date(T0.getTime() + 60_000);
    const quiet = await writeBack(client, notice.incidentId, desired(soon), soon);
    expect(quiet.created.length + quiet.series.length).toBe(0);
    expect(quiet.suppressed.map((s) => s.why)).toEqual(Array(4).fill('repeat-within-interval'));
    const later = new Date(T0.getTime() + 6 * 60_000);
    const second = await writeBack(client, notice.incidentId, desired(later), later);
    expect(second.series).toHaveLength(4);
    const third = new Date(T0.getTime() + 12 * 60_000);
    await writeBack(client, notice.incidentId, desired(third), third);
    expect(server.events.all().map((e) => e.series)).toEqual(
      Array(4).fill({ count: 3, lastObservedTime: microTime(third) }),
    );
    expect(server.events.all()).toHaveLength(4);
  });

  it('creates an event again when it expired between the read-back and the series patch', async () => {
    const client = eventsClient(api());
    await writeBack(client, notice.incidentId, desired(T0), T0);
    const later = new Date(T0.getTime() + 6 * 60_000);
    const expiring = {
      ...client,
      incidentEvents: async (id: string) => {
        const held = await client.incidentEvents(id);
        server.events.stored.clear();
        return held;
      },
    };
    const r = await writeBack(expiring, notice.incidentId, desired(later), later);
    expect(r.created).toHaveLength(4);
    expect(r.failed).toEqual([]);
  });

  it('stores one event when the API server answered 500 after storing it', async () => {
    server.faults.push({
      path: '/apis/events.k8s.io/v1/namespaces/default/events',
      method: 'POST',
      status: 500,
      afterApplying: true,
    });
    const r = await writeBack(eventsClient(api()), notice.incidentId, desired(T0), T0);
    expect(r.failed).toEqual([]);
    expect(server.events.all()).toHaveLength(4);
    // Read back instead of sent again: four creates in all, the first answered 500 after it was stored.
    const creates = server.seen.filter((s) => s.method === 'POST' && s.path.includes('events.k8s.io'));
    expect(creates).toHaveLength(4);
  });

  it('reports a lost race as a conflict, never as written', async () => {
    const client = eventsClient(api());
    await writeBack(client, notice.incidentId, desired(T0), T0);
    const later = new Date(T0.getTime() + 6 * 60_000);
    const racing = {
      ...client,
      incidentEvents: async (id: string) => {
        const held = await client.incidentEvents(id);
        for (const e of desired(T0))
          await raw(
            'PATCH',
            `/apis/events.k8s.io/v1/namespaces/${e.metadata.namespace}/events/${e.metadata.name}`,
            { series: { count: 2, lastObservedTime: microTime(later) } },
            'application/merge-patch+json',
          );
        return held;
      },
    };
    const r = await writeBack(racing, notice.incidentId, desired(later), later);
    expect(r.series).toEqual([]);
    expect(r.failed.map((f) => f.error)).toEqual(
      Array(4).fill(expect.stringMatching(/^conflict: .*the object has been modified/)),
    );
  });
});

describe('the local API server validates events.k8s.io/v1 as the API server does', () => {
  const plain = (e: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(e));
  const base = () => plain(desired(T0)[2]);
  const create = (e: Record<string, unknown>, ns = 'default') =>
    raw('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, e);

  it.each([
    [
      'a note over 1024 bytes',
      { note: 'é'.repeat(513) },
      /message: Invalid value: "": can have at most 1024 characters/,
    ],
    ['no action', { action: '' }, /action: Required value/],
    [
      'a reason over 128 bytes',
      { reason: 'R'.repeat(129) },
      /reason: Invalid value: "": can have at most 128 characters/,
    ],
    ['a type other than Normal or Warning', { type: 'Error' }, /type: Invalid value: "": has invalid value: Error/],
    [
      'a series of one',
      { series: { count: 1, lastObservedTime: microTime(T0) } },
      /series.count: Invalid value: "": should be at least 2/,
    ],
    ['a deprecated count', { deprecatedCount: 3 }, /count: Invalid value: "": needs to be unset/],
    ['no reporting instance', { reportingInstance: '' }, /reportingInstance: Required value/],
    [
      'a reporting controller that is no qualified name',
      { reportingController: 'pod doctor' },
      /reportingController: Invalid value: "pod doctor"/,
    ],
  ])('refuses %s with 422 Invalid', async (_, change, message) => {
    const r = await create({ ...base(), ...change });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(String(r.body.message)).toMatch(message);
  });

  it('refuses a node event outside default and kube-system, a MicroTime without six digits, and a second create', async () => {
    const node = plain(desired(T0)[0]);
    node.metadata = { ...(node.metadata as object), namespace: 'shop' };
    expect((await create(node, 'shop')).body.message).toMatch(
      /involvedObject.namespace: Invalid value: "": does not match event.namespace/,
    );
    expect((await create({ ...base(), eventTime: T0.toISOString() })).status).toBe(400);
    expect((await create(base())).status).toBe(201);
    const again = await create(base());
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('AlreadyExists');
  });

  it('lets a patch change the series only (note, reason, regarding are immutable)', async () => {
    const e = base();
    await create(e);
    const path = `/apis/events.k8s.io/v1/namespaces/default/events/${(e.metadata as { name: string }).name}`;
    const note = await raw('PATCH', path, { note: 'changed' }, 'application/strategic-merge-patch+json');
    expect(note.status).toBe(422);
    expect(note.body.message).toMatch(/note: Invalid value: "changed": field is immutable/);
    const ok = await raw(
      'PATCH',
      path,
      { series: { count: 2, lastObservedTime: microTime(T0) } },
      'application/strategic-merge-patch+json',
    );
    expect(ok.status).toBe(200);
  });
});

describe('RBAC for the write-back: events only, and only for the write group', () => {
  it('refuses the sweep (group pod-doctor) every event write', async () => {
    const sweep = new KubeApiServer({ groups: ['pod-doctor'] });
    const url = await sweep.start();
    try {
      const r = await writeBack(eventsClient(api(sweep, url)), notice.incidentId, desired(T0), T0).catch(
        (e: Error) => e,
      );
      expect(String(r)).toMatch(
        /KubernetesForbiddenError: .*cannot list resource "events" in API group "events.k8s.io"/,
      );
      expect(sweep.events.all()).toEqual([]);
    } finally {
      await sweep.stop();
    }
  });

  it('grants the write group no delete of events and no core v1 event writes', async () => {
    const { allowed, groupGrants } = await import('../../local/rbac.js');
    const g = groupGrants('pod-doctor-actions');
    const events = { apiGroup: 'events.k8s.io', resource: 'events', namespace: 'default', name: 'x' };
    expect(['create', 'patch', 'get', 'list'].map((verb) => allowed(g, { ...events, verb }))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['delete', 'update', 'deletecollection'].map((verb) => allowed(g, { ...events, verb }))).toEqual([
      false,
      false,
      false,
    ]);
    expect(allowed(g, { verb: 'create', apiGroup: '', resource: 'events', namespace: 'default' })).toBe(false);
  });
});

describe("the door's write-back of a run: its summary as events on the objects the workflow resolved", () => {
  const EXECUTION = 'arn:aws:states:us-east-2:111122223333:execution:PodDoctorIncidentWorkflow1A2B:inc-1';
  const summary = {
    cause: 'ipamd has no free IP address on the node',
    outcome: 'restart-aws-node: verified',
    evidence: ['failed to assign an IP address to container\n<!channel> token=abcd1234secretvalue'],
    findings: [{ id: 'k8s.aws-node', status: 'fail', summary: 'aws-node not Ready on the node' }],
    actions: [{ id: 'restart-aws-node', status: 'verified' }],
    executionArn: EXECUTION,
    consoleLink: 'https://console.aws.amazon.com/states/home#/v2/executions/details/x',
  };

  it("writes the cause, evidence and action with the summary link, names the deployment, and never a log line's secret", async () => {
    const r = await reportEvents(
      {
        incidentId: 'inc-1',
        class: 'ipamd-unavailable',
        cluster: 'prod',
        execution: EXECUTION,
        summaryUri: 's3://evidence/incidents/inc-1/summary.json',
        targets,
      },
      { events: eventsClient(api()), summary: async () => summary, now: () => T0.getTime() },
    );
    expect(r.failed).toEqual([]);
    expect(r.created).toHaveLength(4);
    const [cause] = server.events.all();
    expect(cause).toMatchObject({ reportingInstance: 'pod-doctor-PodDoctorIncidentWorkflow1A2B', type: 'Warning' });
    expect(cause.note).toMatch(
      /^ipamd-unavailable: ipamd has no free IP address on the node; k8s.aws-node: aws-node not Ready on the node\. Evidence: "failed to assign an IP address to container <!channel> token=\[REDACTED\]" incident inc-1; summary: s3:\/\/evidence\/incidents\/inc-1\/summary.json$/,
    );
    expect(reportingInstanceOf('not an arn')).toBe('pod-doctor');
  });
});
