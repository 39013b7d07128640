import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClusterWrites } from '../../lambdas/aws/door/cluster-writes.js';
import { evictStuckPods } from '../../lambdas/aws/door/evictions.js';
import { verifyReplacements } from '../../lambdas/aws/kubernetes/replacements.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';

/**
 * evict-stuck-pods and verify-replacements against the local HTTPS API server (recorded objects,
 * the shipped RBAC as its authorizer): what the eviction reports for the watch after it, the API
 * server's dry run, and the controllers' new pods found by owner uid, never by name.
 */
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };
const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 300 });
let endpoint = '';

const api = () =>
  new ClusterApi(
    { name: 'prod', region: 'us-east-2', endpoint, certificateAuthorityData: server.caData },
    new EksTokenCache(CREDS),
    { sleep: async () => {} },
  );
const podNames = () => server.cluster.pods.map((p) => (p.metadata as { name: string }).name);

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.seen.length = 0;
  server.cluster = recordedCluster();
  server.writes.behaviour.recreateEvicted = undefined;
});

describe('evict-stuck-pods: what the watch of the re-created pods needs', () => {
  it('reports each evicted pod with its uid and its controller (kind, name, uid from ownerReferences)', async () => {
    const r = await evictStuckPods(new ClusterWrites(api()), NODE, [{ namespace: 'team-a', name: 'worker-0' }], {
      clock: () => new Date('2026-11-30T12:00:00.000Z'),
    });
    expect(r.dryRun).toBe(false);
    expect(r.startedAt).toBe('2026-11-30T12:00:00.000Z');
    expect(r.evictedPods).toEqual([
      {
        namespace: 'team-a',
        name: 'worker-0',
        uid: '3b1f6c52-0f4e-4d55-9f3b-1a2b3c4d5e05',
        owner: { kind: 'StatefulSet', name: 'worker', uid: 'owner-3b1f6c52-0f4e-4d55-9f3b-1a2b3c4d5e05' },
      },
    ]);
    expect(podNames()).not.toContain('worker-0');
  });

  it('dry run: dryRun=All on every eviction, nothing is evicted; a budget does not hold back a Pending stuck pod', async () => {
    server.cluster.podDisruptionBudgets?.push({
      metadata: { name: 'api', namespace: 'team-a' },
      spec: { selector: { matchLabels: { app: 'api' } } },
      status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 },
    });
    const before = podNames();
    const r = await evictStuckPods(new ClusterWrites(api()), NODE, undefined, { dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(r.evicted).toContain('default/nginx-7cdbb5f49f-2p6p2');
    // The API server evicts a Pending pod without consulting its budgets (canIgnorePDB, eviction.go).
    expect(r.evicted).toContain('team-a/api-5d8f7c9b6-x2kq9');
    expect(r.blocked).toEqual([]);
    expect(r.evictedPods).toEqual([]);
    const posts = server.seen.filter((s) => s.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((s) => s.query.get('dryRun') === 'All')).toBe(true);
    expect(podNames()).toEqual(before);
  });
});

describe('verify-replacements: the controllers’ new pods run', () => {
  it('finds each new pod by its controller’s uid (a new name for a ReplicaSet, the same for a StatefulSet) and times it', async () => {
    server.writes.behaviour.recreateEvicted = { readyAfterMs: 150 };
    const only = [
      { namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2' },
      { namespace: 'team-a', name: 'worker-0' },
    ];
    const e = await evictStuckPods(new ClusterWrites(api()), NODE, only);
    const v = await verifyReplacements(api(), e.evictedPods, { since: e.startedAt, windowSeconds: 5, pollMs: 50 });
    expect(v.verified).toBe(true);
    const [nginx, worker] = v.replacements;
    expect(nginx?.evicted).toBe('default/nginx-7cdbb5f49f-2p6p2');
    expect(nginx?.pod).toMatch(/^default\/nginx-7cdbb5f49f-[a-z0-9]{5}$/);
    expect(nginx?.runningAfterSeconds).toBeGreaterThanOrEqual(0.1);
    expect(nginx?.runningAfterSeconds).toBeLessThan(5);
    expect(worker).toMatchObject({ evicted: 'team-a/worker-0', pod: 'team-a/worker-0', node: NODE });
    // Read by namespace with a field selector, never by name.
    const lists = server.seen.filter((s) => s.path === '/api/v1/pods' && s.method === 'GET');
    expect(lists.some((s) => s.query.get('fieldSelector') === 'metadata.namespace=team-a')).toBe(true);
  });

  it('not verified when the new pods stay stuck through the window; a pod of the same controller that existed before is not taken for one', async () => {
    server.writes.behaviour.recreateEvicted = {};
    // A running pod of the same ReplicaSet, created long before the eviction.
    const sibling = structuredClone(server.cluster.pods[0]) as { metadata: Record<string, unknown>; status: unknown };
    sibling.metadata = { ...sibling.metadata, name: 'nginx-7cdbb5f49f-older', uid: 'older-uid' };
    sibling.status = {
      phase: 'Running',
      containerStatuses: [{ name: 'nginx', ready: true, state: { running: { startedAt: '2026-11-30T09:00:00Z' } } }],
    };
    server.cluster.runningPods?.push(sibling as Record<string, unknown>);
    const e = await evictStuckPods(new ClusterWrites(api()), NODE, [
      { namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2' },
    ]);
    const v = await verifyReplacements(api(), e.evictedPods, { since: e.startedAt, windowSeconds: 0.4, pollMs: 50 });
    expect(v.verified).toBe(false);
    expect(v.replacements[0]?.pod).toMatch(/^default\/nginx-7cdbb5f49f-[a-z0-9]{5}$/);
    expect(v.replacements[0]?.pod).not.toBe('default/nginx-7cdbb5f49f-older');
    expect(v.replacements[0]?.runningAfterSeconds).toBeUndefined();
  });

  it('no new pod at all (the controller did not re-create it): not verified, named as such', async () => {
    const e = await evictStuckPods(new ClusterWrites(api()), NODE, [{ namespace: 'team-a', name: 'worker-0' }]);
    const v = await verifyReplacements(api(), e.evictedPods, { since: e.startedAt, windowSeconds: 0.2, pollMs: 50 });
    expect(v).toEqual({ replacements: [{ evicted: 'team-a/worker-0' }], verified: false, windowSeconds: 0.2 });
  });
});
