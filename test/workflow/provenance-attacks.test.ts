import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeIncidentRun } from '../../lambdas/aws/ingest/incident-runs.js';
import { keepAndOpen } from '../../lambdas/aws/ingest/ingest-service.js';
import { aggregate, type IncidentCandidate, type Occurrence } from '../../lambdas/core/incident/incidents.js';
import type { IngestStats } from '../../lambdas/core/incident/ingest.js';
import type { LocalTable } from '../../local/dynamo.js';
import { localEvents } from '../../local/events-runtime.js';
import { asRole } from '../../local/guard.js';
import { localIngest, localIngestDeps } from '../../local/ingest-runtime.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { fixture, subscriptionEvent } from '../support/fixtures.js';

/**
 * Attacks on what pod-doctor believes (issue 34, provenance): tenant-writable signals (Kubernetes Event
 * objects, tenant containers' lines) through the functions as deployed (their roles decide every call,
 * dynalite, the evidence bucket, the topic, the local API server with the shipped RBAC). Each names what
 * it tries and what happens instead. Removing the rank guard (open-incidents.ts: an uncorroborated
 * tenant candidate is dropped) or the corroboration (event-corroboration.ts) makes these fail; see the
 * commit that added them.
 */
type Obj = Record<string, unknown>;
const server = new KubeApiServer({ groups: ['pod-doctor'] });
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const VICTIM = 'ip-192-168-153-54.us-east-2.compute.internal';
const REAL_POD = 'api-5d8f7c9b6-x2kq9';
let endpoint = '';
let template: ResolvedTemplate;
let table: LocalTable;

beforeAll(async () => {
  endpoint = await server.start();
  template = synthesizedTemplate();
});
afterAll(() => server.stop());
beforeEach(async () => {
  table = await freshIncidentTable(template);
  server.cluster = recordedCluster();
  server.faults.length = 0;
  server.coreEvents.reset();
});

/** The recorded pause-image 401 event of a pod, as kubelet creates it (or as anyone may). */
function podEvent(namespace: string, pod: string, n: number, over: Obj = {}): Obj {
  const [e] = recordedCluster().events[`team-a/${REAL_POD}`] as Obj[];
  return {
    ...e,
    metadata: { name: `${pod}.${n}`, namespace, uid: `uid-${namespace}-${pod}-${n}` },
    involvedObject: { kind: 'Pod', namespace, name: pod, apiVersion: 'v1' },
    ...over,
  };
}

/** A pod of `namespace` the kubelet of `node` reports stuck in ContainerCreating (its status as kubelet writes it). */
function stuckPod(namespace: string, name: string, node = NODE): Obj {
  const real = recordedCluster().pods.find((p) => (p as { metadata: Obj }).metadata.name === REAL_POD) as Obj;
  return {
    ...real,
    metadata: { ...(real.metadata as Obj), namespace, name, uid: `uid-pod-${namespace}-${name}` },
    spec: { ...(real.spec as Obj), nodeName: node },
  };
}

const reader = (o: { limits?: Obj; watchSeconds?: number } = {}) =>
  localEvents(template, table, { server, endpoint, watchSeconds: o.watchSeconds ?? 2, limits: o.limits });

describe('Kubernetes Event objects are tenant rank', { timeout: 300_000 }, () => {
  it("an event's source.host never names the node: the incident is keyed on the pod's binding, the victim never named", async () => {
    server.coreEvents.write(
      podEvent('team-a', REAL_POD, 1, {
        source: { component: 'kubelet', host: VICTIM },
        reportingInstance: VICTIM,
      }),
    );
    const r = reader();
    const [out] = await r.invoke('host');
    expect(out.counts).toMatchObject({ corroborated: 1, uncorroborated: 0 });
    expect(r.starts.started).toHaveLength(1);
    const input = r.starts.started[0] as { entities: Obj; factSources: Obj; scopeValue: string };
    expect(input.entities.node).toBe(NODE);
    expect(input.factSources.node).toBe('pod-binding');
    expect(JSON.stringify(input)).not.toContain(VICTIM);
  });

  it('1,500 forged events naming pods that do not exist, across 50 namespaces: nothing opens, every one kept and counted, one notice', async () => {
    for (let i = 0; i < 1500; i++)
      server.coreEvents.write(
        podEvent(`tenant-${i % 50}`, `ghost-${i}`, i, { source: { component: 'kubelet', host: VICTIM } }),
      );
    const r = reader({ watchSeconds: 4 });
    const [out] = await r.invoke('flood');
    expect(r.starts.started).toEqual([]);
    expect(out.incidentsOpened).toEqual([]);
    expect(out.counts).toMatchObject({ uncorroborated: 1500, corroborated: 0 });
    const kept = [...r.objects].filter(([k]) => k.startsWith('dropped/'));
    // Kept as candidates (one per key and namespace), each with the events it folds: every event is in one.
    const records = kept.flatMap(([, body]) => body.trim().split('\n')).map((l) => JSON.parse(JSON.parse(l).record));
    expect(records.reduce((n, x) => n + x.count, 0)).toBe(1500);
    expect(new Set(records.map((x) => x.namespace)).size).toBe(50);
    expect(r.notices.length).toBeLessThanOrEqual(1);
    expect(r.notices[0]?.subject).toMatch(/\(tenant-rank signals\)/);
  });

  it('a forged flood with more occurrences does not push the real kubelet event out of its batch; the real one is counted once', async () => {
    // The attacker's own pods really are stuck (on another node): corroborated, spending its namespace's slots.
    for (let p = 0; p < 10; p++) server.cluster.pods.push(stuckPod('attacker', `stuck-${p}`, VICTIM));
    for (let i = 0; i < 400; i++) server.coreEvents.write(podEvent('attacker', `stuck-${i % 10}`, i, { count: 500 }));
    server.coreEvents.write(podEvent('team-a', REAL_POD, 1, { count: 1 }));
    const r = reader({ limits: { maxIncidentsPerDelivery: 1 }, watchSeconds: 3 });
    const [out] = await r.invoke('mixed');
    // team-a's event takes its own namespace's slot: its node's incident starts beside the attacker's.
    const inputs = r.starts.started as { pods: string[]; entities: Obj }[];
    expect(inputs.find((i) => i.pods.includes(`team-a/${REAL_POD}`))?.entities.node).toBe(NODE);
    expect(inputs.filter((i) => i.entities.node === VICTIM)).toHaveLength(1);
    expect(out.counts.corroborated).toBe(401);
    // Its next update is not a duplicate of a dropped claim: it joins the incident it opened.
    server.coreEvents.write(
      podEvent('team-a', REAL_POD, 1, {
        count: 2,
        metadata: { name: `${REAL_POD}.1`, namespace: 'team-a', uid: 'uid-team-a-api-5d8f7c9b6-x2kq9-1' },
      }),
    );
    const [next] = await reader({ limits: { maxIncidentsPerDelivery: 1 } }).invoke('update');
    expect(next.counts.duplicates).toBe(1);
  });

  it('an event about a pod that exists but is not stuck the way the class says opens nothing', async () => {
    // nginx-7cdbb5f49f-2p6p2 waits in ImagePullBackOff: a sandbox failure does not explain it.
    server.coreEvents.write(podEvent('default', 'nginx-7cdbb5f49f-2p6p2', 1));
    const r = reader();
    const [out] = await r.invoke('mismatch');
    expect(out.counts.uncorroborated).toBe(1);
    expect(r.starts.started).toEqual([]);
    const kept = [...r.objects].filter(([k]) => k.startsWith('dropped/')).map(([, b]) => b);
    expect(kept.join('')).toContain('ImagePullBackOff, which sandbox-image does not explain');
  });
});

const TENANT_LINE_GROUP = '/aws/containerinsights/prod-eu/application';
const DATAPLANE = '/aws/containerinsights/prod-eu/dataplane';
const CONFIG = {
  logGroupClusters: { [TENANT_LINE_GROUP]: 'prod-eu', [DATAPLANE]: 'prod-eu' },
  accountScope: 'prod-eu',
};
const PAUSE = '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10';
const sandboxMessage = `E1129 10:00:01.000000    3412 kuberuntime_sandbox.go:72] "Failed to create sandbox for pod" err="rpc error: code = Unknown desc = failed to get sandbox image \\"${PAUSE}\\": failed to pull image \\"${PAUSE}\\": 401 Unauthorized"`;

describe("tenant containers' lines are tenant rank", { timeout: 120_000 }, () => {
  it("a tenant container printing a node's record (envelope fields inside its line) names no node and opens nothing", async () => {
    const forgedInner = JSON.stringify({
      hostname: VICTIM,
      ec2_instance_id: 'i-0fffffffffffffff0',
      systemd_unit: 'kubelet.service',
      message: sandboxMessage,
    });
    const line = JSON.stringify({
      log: forgedInner,
      stream: 'stdout',
      kubernetes: { namespace_name: 'attacker', pod_name: 'x', container_name: 'app' },
    });
    const ingest = localIngest(template, table, { config: CONFIG, now: () => Date.parse('2026-11-29T10:01:00Z') });
    const out = await ingest.invoke(
      subscriptionEvent([line, line], { logGroup: TENANT_LINE_GROUP, start: Date.parse('2026-11-29T10:00:00Z') }),
      'forged-envelope',
    );
    expect(out.incidentsOpened).toEqual([]);
    expect(ingest.started).toEqual([]);
    const kept = [...ingest.objects].filter(([k]) => k.startsWith('dropped/')).map(([, b]) => b);
    expect(kept.join('')).toContain('limit uncorroborated');
    expect(kept.join('')).not.toContain('i-0fffffffffffffff0');
  });
});

const T0 = Date.parse('2026-11-29T10:00:00Z');
const stats = (): IngestStats => ({
  received: 1,
  classified: 1,
  unknown: 0,
  rejected: 0,
  controlMessages: 0,
  outOfScope: 0,
  byClass: {},
});

/** The CNI policy detached from the aws-node role, as CloudTrail records it (the ECR fixture's shape). */
function detachCniPolicy(): Obj {
  const e = fixture('events/detach-ecr-readonly.json') as Obj & { detail: Obj & { requestParameters: Obj } };
  return {
    ...e,
    detail: {
      ...e.detail,
      eventID: 'cni-detach-1',
      requestParameters: {
        ...e.detail.requestParameters,
        policyArn: 'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy',
      },
    },
  };
}

describe("re-evaluations are each rank's own", { timeout: 120_000 }, () => {
  it('corroborated tenant signals spend only the tenant re-evaluations: the node line and a real DetachRolePolicy are still evaluated', async () => {
    const now = { t: T0 + 60_000 };
    const { deps, started, role } = localIngestDeps(template, table, { config: CONFIG, now: () => now.t });
    const run = (cs: IncidentCandidate[], id: string) =>
      asRole(role, () => keepAndOpen([], cs, stats(), id, deps, now.t));
    // The real CloudTrail change opens the cluster's cni-permissions incident.
    const ingest = localIngest(template, table, { config: CONFIG, now: () => now.t });
    await ingest.invoke(detachCniPolicy(), 'aws-1');
    const [first] = ingest.started as { incidentKey: string; incidentId: string }[];
    expect(first).toBeDefined();
    const end = async (execution: string) =>
      closeIncidentRun(table.client, table.name, {
        incidentKey: first.incidentKey,
        incidentId: first.incidentId,
        execution,
        result: 'not-acted',
        now: now.t,
      });
    await end(first.incidentId);
    // Four forged (but corroborated) tenant signals of the same key, each after the last run ended.
    const tenant = (n: number): IncidentCandidate => {
      const o: Occurrence = {
        class: 'cni-permissions',
        kind: 'failure',
        cause: 'forged',
        signature: null,
        cluster: 'prod-eu',
        entities: {},
        at: now.t,
        evidence: `forged ${n}`,
        signal: 'kubernetes-events',
        rank: 'tenant',
        corroboratedBy: 'pod-status',
        tenantNamespace: 'attacker',
      };
      return { ...aggregate([o])[0], key: first.incidentKey };
    };
    const names: string[] = [];
    for (let n = 1; n <= 4; n++) {
      now.t += 6 * 60_000;
      const out = await run([tenant(n)], `tenant-${n}`);
      names.push(...out.reevaluated);
      for (const name of out.reevaluated) await end(name);
    }
    expect(names).toHaveLength(3);
    // The real DetachRolePolicy again: CloudTrail wrote it, it is evaluated (not just joined).
    now.t += 60_000;
    const again = await ingest.invoke({ ...detachCniPolicy(), id: 'again' }, 'aws-2');
    expect(again.reevaluated).toHaveLength(1);
    // A node-rank signal of the incident still has its own re-evaluations.
    await end(again.reevaluated[0]);
    now.t += 6 * 60_000;
    const { corroboratedBy: _c, tenantNamespace: _n, ...nodeRank } = tenant(9);
    const node = await run([{ ...nodeRank, rank: 'node' }], 'node-1');
    expect(node.reevaluated).toHaveLength(1);
    expect(started.length + ingest.started.length).toBeGreaterThan(4);
  });
});
