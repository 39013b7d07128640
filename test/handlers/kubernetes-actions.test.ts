import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClusterWrites } from '../../lambdas/aws/door/cluster-writes.js';
import { drainNode, evictStuckPods } from '../../lambdas/aws/door/evictions.js';
import {
  cordonNode,
  enableWindowsIpam,
  restartAwsNode,
  restoreWindowsIpam,
  uncordonNode,
} from '../../lambdas/aws/door/kubernetes-actions.js';
import {
  ClusterApi,
  KubernetesConflictError,
  KubernetesForbiddenError,
} from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';

const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const OTHER = 'ip-192-168-153-54.us-east-2.compute.internal';
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };

const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 300 });
let endpoint = '';
const sleeps: number[] = [];

function api(target = server, pageSize = 2): ClusterApi {
  const cluster = { name: 'prod', region: 'us-east-2', endpoint, certificateAuthorityData: target.caData };
  return new ClusterApi(cluster, new EksTokenCache(CREDS), {
    pageSize,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

/** The door's writes through the same API client. */
const door = (target = server, pageSize = 2) => new ClusterWrites(api(target, pageSize));

const writes = () => server.seen.filter((r) => r.method !== 'GET');
const nodeSpec = () =>
  (server.cluster.nodes.find((n) => (n.metadata as { name: string }).name === NODE)?.spec ?? {}) as {
    unschedulable?: boolean;
    providerID?: string;
  };

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.seen.length = 0;
  server.faults.length = 0;
  server.forbidden.length = 0;
  server.cluster = recordedCluster();
  server.writes.behaviour.awsNodeReadyAfterMs = 300;
  delete server.writes.behaviour.evictedGoneAfterMs;
  sleeps.length = 0;
});

describe('cordon / uncordon (PATCH spec.unschedulable, before-state recorded)', () => {
  it('cordons with a merge patch of spec.unschedulable only, and uncordons back to the state before', async () => {
    const cordon = await cordonNode(door(), NODE);
    expect(cordon).toEqual({ node: NODE, before: false, after: true, changed: true });
    const patch = writes()[0];
    expect(patch).toMatchObject({ method: 'PATCH', path: `/api/v1/nodes/${NODE}` });
    expect(patch?.contentType).toBe('application/merge-patch+json');
    expect(JSON.parse(patch?.body ?? '')).toEqual({ spec: { unschedulable: true } });
    expect(nodeSpec().unschedulable).toBe(true);

    expect(await cordonNode(door(), NODE)).toMatchObject({ before: true, changed: false });
    const uncordon = await uncordonNode(door(), NODE, cordon);
    expect(uncordon).toEqual({ node: NODE, before: true, after: false, changed: true });
    expect(nodeSpec()).not.toHaveProperty('unschedulable');
    expect(nodeSpec().providerID).toBe('aws:///us-east-2a/i-0123456789abcdef0');
  });

  it('leaves a node cordoned when it already was before pod-doctor cordoned it', async () => {
    nodeSpec().unschedulable = true;
    const cordon = await cordonNode(door(), NODE);
    expect(cordon.changed).toBe(false);
    expect(await uncordonNode(door(), NODE, cordon)).toMatchObject({ changed: false, after: true });
    expect(writes()).toEqual([]);
  });
});

describe('restart aws-node on one node', () => {
  it('deletes the DaemonSet pod on the node (uid precondition) and waits for its replacement to be Ready', async () => {
    const r = await restartAwsNode(door(), NODE, { pollMs: 50, sleep: (ms) => new Promise((s) => setTimeout(s, ms)) });
    expect(r.ready).toBe(true);
    expect(r.deleted).toMatchObject({ pod: 'aws-node-7xk2p', uid: 'aws-node-uid', ready: false, restarts: 7 });
    expect(r.replacement?.pod).toMatch(/^aws-node-[a-z0-9]{1,5}$/);
    expect(r.replacement).toMatchObject({ ready: true, restarts: 0 });
    expect(r.readyAfterSeconds).toBeGreaterThanOrEqual(0.25);
    const del = writes()[0];
    expect(del).toMatchObject({ method: 'DELETE', path: '/api/v1/namespaces/kube-system/pods/aws-node-7xk2p' });
    expect(JSON.parse(del?.body ?? '{}')).toMatchObject({ preconditions: { uid: 'aws-node-uid' } });
    expect(writes().length).toBe(1);
    const lists = server.seen.filter((s) => s.path === '/api/v1/namespaces/kube-system/pods');
    expect(lists.every((l) => l.query.get('labelSelector') === 'k8s-app=aws-node')).toBe(true);
  });

  it('reports a replacement that never becomes Ready within the timeout', async () => {
    server.writes.behaviour.awsNodeReadyAfterMs = undefined;
    let t = 0;
    const r = await restartAwsNode(door(), NODE, {
      timeoutMs: 10_000,
      pollMs: 2_000,
      clock: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    expect(r).toMatchObject({ ready: false, deleted: { pod: 'aws-node-7xk2p' }, replacement: { ready: false } });
    expect(r.readyAfterSeconds).toBeUndefined();
  });

  it('refuses a node without an aws-node pod and never deletes anything else', async () => {
    await expect(restartAwsNode(door(), OTHER)).rejects.toThrow(/AwsNodePodNotFound|no pod of DaemonSet/);
    expect(writes()).toEqual([]);
  });
});

describe('enable-windows-ipam in ConfigMap amazon-vpc-cni', () => {
  it('sets the key with a merge patch guarded by the resourceVersion read, and restores the value before', async () => {
    const change = await enableWindowsIpam(door());
    expect(change).toEqual({ key: 'enable-windows-ipam', before: 'false', after: 'true', changed: true });
    expect(JSON.parse(writes()[0]?.body ?? '')).toEqual({
      metadata: { resourceVersion: '4821' },
      data: { 'enable-windows-ipam': 'true' },
    });
    const data = (server.cluster.vpcCniConfigMap as { data: Record<string, string> }).data;
    expect(data['enable-network-policy-controller']).toBe('false');
    expect(await enableWindowsIpam(door())).toMatchObject({ changed: false });
    expect(await restoreWindowsIpam(door(), change)).toMatchObject({ before: 'true', after: 'false', changed: true });
    expect((server.cluster.vpcCniConfigMap as { data: Record<string, string> }).data['enable-windows-ipam']).toBe(
      'false',
    );
  });

  it('removes the key on restore when it was absent before', async () => {
    const cm = server.cluster.vpcCniConfigMap as { data: Record<string, string> };
    delete cm.data['enable-windows-ipam'];
    const change = await enableWindowsIpam(door());
    expect(change.before).toBeNull();
    await restoreWindowsIpam(door(), change);
    expect((server.cluster.vpcCniConfigMap as { data: Record<string, string> }).data).not.toHaveProperty(
      'enable-windows-ipam',
    );
  });

  it('a 500 after the patch was applied: read back and reported as applied, never sent again into a 409', async () => {
    const path = '/api/v1/namespaces/kube-system/configmaps/amazon-vpc-cni';
    server.faults.push({ path, method: 'PATCH', status: 500, afterApplying: true });
    const change = await enableWindowsIpam(door());
    expect(change).toEqual({ key: 'enable-windows-ipam', before: 'false', after: 'true', changed: true });
    expect(writes().map((w) => `${w.method} ${w.path}`)).toEqual([`PATCH ${path}`]);
    expect(sleeps).toEqual([]);
  });

  it('a 500 before the patch was applied: the read shows it did not take effect, so it is sent again', async () => {
    const path = '/api/v1/namespaces/kube-system/configmaps/amazon-vpc-cni';
    server.faults.push({ path, method: 'PATCH', status: 500 });
    const change = await enableWindowsIpam(door());
    expect(change).toMatchObject({ after: 'true', changed: true });
    expect(writes().map((w) => w.method)).toEqual(['PATCH', 'PATCH']);
    expect(sleeps.length).toBe(1);
  });

  it('refuses to write over a change made since the read (409 Conflict)', async () => {
    await expect(door().patchVpcCniConfigMap({ 'enable-windows-ipam': 'true' }, '4000')).rejects.toBeInstanceOf(
      KubernetesConflictError,
    );
  });
});

describe('evict the stuck pods a controller re-creates (Eviction API, policy/v1)', () => {
  it('evicts only stuck pods on the node whose controller re-creates them', async () => {
    const bare = structuredClone(server.cluster.pods[0] as { metadata: Record<string, unknown> });
    bare.metadata = { ...bare.metadata, name: 'hand-made', ownerReferences: undefined };
    server.cluster.pods.push(bare as Record<string, unknown>);
    const r = await evictStuckPods(door(), NODE);
    expect(r.evicted).toEqual([
      'default/nginx-7cdbb5f49f-2p6p2',
      'default/nginx-55d75d5f56-qrqmp',
      'team-a/api-5d8f7c9b6-x2kq9',
      'team-a/worker-0',
    ]);
    expect(r.skipped).toEqual([{ pod: 'default/hand-made', why: 'no controller would re-create it' }]);
    const posts = writes();
    expect(posts.every((p) => p.method === 'POST' && p.path.endsWith('/eviction'))).toBe(true);
    expect(JSON.parse(posts[0]?.body ?? '')).toEqual({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'nginx-7cdbb5f49f-2p6p2', namespace: 'default' },
    });
    // Every page of the node's pods was read (page size 2).
    expect(server.seen.filter((s) => s.path === '/api/v1/pods').length).toBeGreaterThan(3);
  });

  it.each([
    ['gone at once', undefined],
    ['terminating', 60_000],
  ])(
    'a 500 after the eviction was applied (pod %s): reported evicted, the eviction never sent twice',
    async (_, ms) => {
      server.writes.behaviour.evictedGoneAfterMs = ms;
      const path = '/api/v1/namespaces/team-a/pods/worker-0/eviction';
      server.faults.push({ path, method: 'POST', status: 500, afterApplying: true });
      const r = await evictStuckPods(door(), NODE, [{ namespace: 'team-a', name: 'worker-0' }]);
      expect(r).toMatchObject({ evicted: ['team-a/worker-0'], gone: [], failed: [], blocked: [] });
      expect(writes().map((w) => `${w.method} ${w.path}`)).toEqual([`POST ${path}`]);
    },
  );

  it('a 500 before the eviction was applied: the pod is still there, not terminating, so it is sent again', async () => {
    const path = '/api/v1/namespaces/team-a/pods/worker-0/eviction';
    server.faults.push({ path, method: 'POST', status: 500 });
    const r = await evictStuckPods(door(), NODE, [{ namespace: 'team-a', name: 'worker-0' }]);
    expect(r).toMatchObject({ evicted: ['team-a/worker-0'], failed: [] });
    expect(writes().map((w) => w.method)).toEqual(['POST', 'POST']);
  });

  it('a 500 after a drain eviction under a budget was applied: evicted once, the budget spent once', async () => {
    server.writes.behaviour.evictedGoneAfterMs = 60_000;
    const path = '/api/v1/namespaces/default/pods/cache-5f8d7b9c4-k2m4p/eviction';
    server.faults.push({ path, method: 'POST', status: 500, afterApplying: true });
    const r = await drainNode(door(), NODE, { timeoutMs: 100, pollMs: 50 });
    expect(r.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(r.blocked.map((b) => b.pod)).not.toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(writes().filter((w) => w.path === path).length).toBe(1);
    const cache = server.cluster.podDisruptionBudgets?.find((b) => (b.metadata as { name: string }).name === 'cache');
    expect((cache?.status as { disruptionsAllowed?: number } | undefined)?.disruptionsAllowed).toBe(0);
  });

  it('narrows to the pods the workflow named', async () => {
    const r = await evictStuckPods(door(), NODE, [{ namespace: 'team-a', name: 'worker-0' }]);
    expect(r.evicted).toEqual(['team-a/worker-0']);
    expect(writes().length).toBe(1);
  });
});

describe('drain a node for replacement (PodDisruptionBudgets honoured)', () => {
  it('cordons, evicts controller pods, skips DaemonSet and mirror pods, reports the budget that blocks and the bare pod', async () => {
    const r = await drainNode(door(), NODE);
    expect(r.cordon).toMatchObject({ before: false, after: true, changed: true });
    expect(r.blocked).toEqual([
      {
        pod: 'default/web-6d4cf56db6-7xw2n',
        budget: expect.stringMatching(/disruption budget web needs 2 healthy pods and has 2 currently/),
      },
    ]);
    expect(r.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(r.evicted).toContain('team-a/worker-0');
    expect(r.evicted).not.toContain('default/web-6d4cf56db6-q9r8s'); // another node
    expect(r.skipped.map((s) => s.pod).sort()).toEqual([
      'kube-system/aws-node-7xk2p',
      'kube-system/kube-proxy-8xkzq',
      `kube-system/node-exporter-${NODE}`,
    ]);
    expect(r.unmanaged).toEqual(['default/debug-shell']);
    expect(r.complete).toBe(false);
    expect(nodeSpec().unschedulable).toBe(true);
    // A budget's 429 is an answer, not throttling: one attempt, no back-off, nothing forced.
    expect(writes().filter((w) => w.path.includes('web-6d4cf56db6-7xw2n')).length).toBe(1);
    expect(sleeps).toEqual([]);
    expect(writes().some((w) => w.method === 'DELETE')).toBe(false);
    expect(server.cluster.runningPods?.map((p) => (p.metadata as { name: string }).name)).toContain('debug-shell');
  });

  it('still retries an API server throttling 429 (no budget cause) with back-off', async () => {
    server.faults.push({ path: '/api/v1/namespaces/default/pods/cache-5f8d7b9c4-k2m4p/eviction', status: 429 });
    const r = await drainNode(door(), NODE);
    expect(r.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(sleeps.length).toBe(1);
  });
});

describe('RBAC: the actions need exactly the verbs k8s/pod-doctor-rbac.yaml grants', () => {
  it('allows every action call and refuses none of them', async () => {
    await drainNode(door(), NODE);
    await uncordonNode(door(), NODE);
    await enableWindowsIpam(door());
    await restartAwsNode(door(), NODE, { pollMs: 50, sleep: (ms) => new Promise((s) => setTimeout(s, ms)) });
    expect(server.forbidden).toEqual([]);
  });

  it('refuses the actions to the sweep, whose access entry maps to group pod-doctor only', async () => {
    const sweep = new KubeApiServer({ groups: ['pod-doctor'] });
    const url = await sweep.start();
    try {
      const a = new ClusterApi(
        { name: 'prod', region: 'us-east-2', endpoint: url, certificateAuthorityData: sweep.caData },
        new EksTokenCache(CREDS),
      );
      await expect(cordonNode(new ClusterWrites(a), NODE)).rejects.toBeInstanceOf(KubernetesForbiddenError);
      await expect(restartAwsNode(new ClusterWrites(a), NODE)).rejects.toThrow(/cannot delete resource "pods"/);
      await expect(enableWindowsIpam(new ClusterWrites(a))).rejects.toThrow(/cannot patch resource "configmaps"/);
      const r = await evictStuckPods(new ClusterWrites(a), NODE);
      expect(r.failed[0]?.error).toMatch(/KubernetesForbiddenError: .*cannot create resource "pods\/eviction"/);
      expect(r.evicted).toEqual([]);
    } finally {
      await sweep.stop();
    }
  });

  it('answers 403 when a verb is removed from the manifest (patch nodes)', async () => {
    const yaml = readFileSync(join(PROJECT_ROOT, 'k8s/pod-doctor-rbac.yaml'), 'utf8');
    const without = yaml.replace(/resources: \[nodes\]\n {4}verbs: \[patch\]/, 'resources: [nodes]\n    verbs: []');
    expect(without).not.toBe(yaml);
    const file = join('/tmp', `pod-doctor-rbac-${process.pid}.yaml`);
    writeFileSync(file, without);
    const strict = new KubeApiServer({ rbacFile: file });
    const url = await strict.start();
    try {
      const a = new ClusterApi(
        { name: 'prod', region: 'us-east-2', endpoint: url, certificateAuthorityData: strict.caData },
        new EksTokenCache(CREDS),
      );
      await expect(cordonNode(new ClusterWrites(a), NODE)).rejects.toThrow(
        /nodes "ip-192-168-149-143.us-east-2.compute.internal" is forbidden: .* cannot patch resource "nodes"/,
      );
      expect(strict.seen.filter((s) => s.method === 'PATCH').length).toBe(1);
      await expect(enableWindowsIpam(new ClusterWrites(a))).resolves.toMatchObject({ changed: true });
    } finally {
      await strict.stop();
    }
  });
});

describe('admission policy (k8s/pod-doctor-admission-policy.yaml): deletes in kube-system only of aws-node pods', () => {
  const kubeProxy = () =>
    server.cluster.runningPods?.find((p) => (p.metadata as { name: string }).name === 'kube-proxy-8xkzq');

  it('refuses deleting another kube-system pod that RBAC alone would allow, and still restarts aws-node', async () => {
    await expect(
      door().deletePod('kube-system', 'kube-proxy-8xkzq', 'a1c2e3f4-0000-4000-8000-000000000003'),
    ).rejects.toThrow(
      /ValidatingAdmissionPolicy 'pod-doctor-deletes-only-aws-node' with binding 'pod-doctor-deletes-only-aws-node' denied request: pod-doctor may delete only aws-node pods in kube-system/,
    );
    expect(kubeProxy()).toBeDefined();
    const r = await restartAwsNode(door(), NODE, { pollMs: 50, sleep: (ms) => new Promise((s) => setTimeout(s, ms)) });
    expect(r.ready).toBe(true);
  });

  it('without the policy (a cluster before 1.30) RBAC alone lets the same delete through', async () => {
    const rbacOnly = new KubeApiServer({ admissionFile: null });
    const url = await rbacOnly.start();
    try {
      const a = new ClusterApi(
        { name: 'prod', region: 'us-east-2', endpoint: url, certificateAuthorityData: rbacOnly.caData },
        new EksTokenCache(CREDS),
      );
      expect(
        await new ClusterWrites(a).deletePod('kube-system', 'kube-proxy-8xkzq', 'a1c2e3f4-0000-4000-8000-000000000003'),
      ).toBe(true);
    } finally {
      await rbacOnly.stop();
    }
  });
});
