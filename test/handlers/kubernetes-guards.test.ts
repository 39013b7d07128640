import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClusterWrites } from '../../lambdas/aws/door/cluster-writes.js';
import { drainNode } from '../../lambdas/aws/door/evictions.js';
import { cordonNode, restartAwsNode } from '../../lambdas/aws/door/kubernetes-actions.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { allowed, attributesOf, groupGrants } from '../../local/rbac.js';

/**
 * The shipped RBAC manifest and admission policies (k8s/) decided as the API server decides them: what
 * pod-doctor's Kubernetes identity can do in kube-system and to nodes, through every route the API
 * offers (a DELETE, an eviction, a collection, a patch), not only the calls pod-doctor's code makes.
 */
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };
const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 50 });
let endpoint = '';

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.cluster = recordedCluster();
  server.forbidden.length = 0;
});

/** The door's writes with pod-doctor's credentials (the door is the one caller that holds them). */
const api = (target = server, url = endpoint) =>
  new ClusterWrites(
    new ClusterApi(
      { name: 'prod', region: 'us-east-2', endpoint: url, certificateAuthorityData: target.caData },
      new EksTokenCache(CREDS),
      { sleep: async () => {} },
    ),
  );

/** A request with pod-doctor's credentials, as anyone holding them (not pod-doctor's code) could send it. */
function raw(method: string, path: string, body?: unknown, target = server, url = endpoint) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        ca: target.cert,
        headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      },
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

/** A running CoreDNS pod on the node, owned by its ReplicaSet (the add-on's Deployment). */
function coreDns(): Record<string, unknown> {
  return {
    metadata: {
      name: 'coredns-5b9dfbf96-8xq2k',
      namespace: 'kube-system',
      uid: 'coredns-uid-1',
      labels: { 'k8s-app': 'kube-dns' },
      ownerReferences: [{ kind: 'ReplicaSet', name: 'coredns-5b9dfbf96', uid: 'rs-uid', controller: true }],
    },
    spec: { nodeName: NODE },
    status: { phase: 'Running' },
  };
}
const podNames = () =>
  [...server.cluster.pods, ...(server.cluster.runningPods ?? [])].map((p) => (p.metadata as { name: string }).name);
const eviction = (name: string) => ({
  apiVersion: 'policy/v1',
  kind: 'Eviction',
  metadata: { name, namespace: 'kube-system' },
});

describe('kube-system: pod-doctor deletes only aws-node pods and evicts nothing', () => {
  it('refuses evicting CoreDNS through the Eviction API (no DELETE admission runs for an eviction)', async () => {
    server.cluster.runningPods?.push(coreDns());
    await expect(api().evictPod('kube-system', 'coredns-5b9dfbf96-8xq2k', { uid: 'coredns-uid-1' })).rejects.toThrow(
      /ValidatingAdmissionPolicy 'pod-doctor-evicts-nothing-in-kube-system'.*denied request: pod-doctor evicts no pod in kube-system/,
    );
    expect(podNames()).toContain('coredns-5b9dfbf96-8xq2k');
  });

  it('refuses every kube-system pod by eviction, as a raw request too; evictions elsewhere still pass', async () => {
    for (const name of ['kube-proxy-8xkzq', 'aws-node-7xk2p']) {
      const r = await raw('POST', `/api/v1/namespaces/kube-system/pods/${name}/eviction`, eviction(name));
      expect(r.status, name).toBe(403);
    }
    const r = await raw('POST', '/api/v1/namespaces/default/pods/web-6d4cf56db6-7xw2n/eviction', {
      ...eviction('web-6d4cf56db6-7xw2n'),
      metadata: { name: 'web-6d4cf56db6-7xw2n', namespace: 'default' },
    });
    // Admitted: the eviction goes to the Eviction API itself (evicted, or refused by the pod's budget).
    expect([201, 429]).toContain(r.status);
    expect(server.forbidden.filter((m) => m.includes('web-6d4cf56db6'))).toEqual([]);
  });

  it('a drain of a node running CoreDNS leaves it, reported as refused, and evicts the rest', async () => {
    server.cluster.runningPods?.push(coreDns());
    const r = await drainNode(api(), NODE, { timeoutMs: 200, pollMs: 20 });
    expect(r.failed.map((f) => f.pod)).toEqual(['kube-system/coredns-5b9dfbf96-8xq2k']);
    expect(r.failed[0].error).toMatch(/pod-doctor evicts no pod in kube-system/);
    expect(r.evicted.length + r.blocked.length).toBeGreaterThan(0);
    expect(podNames()).toContain('coredns-5b9dfbf96-8xq2k');
  });

  it('a collection delete of kube-system pods is refused: RBAC grants no deletecollection', async () => {
    const r = await raw('DELETE', '/api/v1/namespaces/kube-system/pods');
    expect(r.status).toBe(403);
    expect(String(r.body.message)).toMatch(/cannot deletecollection resource "pods"/);
    expect(podNames()).toContain('kube-proxy-8xkzq');
  });

  it('were deletecollection granted, every pod it deletes passes the DELETE policy: only aws-node goes', async () => {
    const rbac = join(server.cert ? '/tmp' : '/tmp', `pod-doctor-rbac-${process.pid}.yaml`);
    writeFileSync(
      rbac,
      `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: wide }
rules: [{ apiGroups: [""], resources: [pods], verbs: [deletecollection, delete, list, get] }]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: wide }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: wide }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: Group, name: pod-doctor-actions }]
`,
    );
    const wide = new KubeApiServer({ rbacFile: rbac });
    const url = await wide.start();
    try {
      const r = await raw('DELETE', '/api/v1/namespaces/kube-system/pods', undefined, wide, url);
      expect(r.status).toBe(403);
      const left = (wide.cluster.runningPods ?? []).map((p) => (p.metadata as { name: string }).name);
      expect(left).toContain('kube-proxy-8xkzq');
      expect(wide.cluster.awsNodePods.map((p) => (p.metadata as { name: string }).name)).not.toContain(
        'aws-node-7xk2p',
      );
    } finally {
      await wide.stop();
    }
  });

  it('still restarts aws-node (its delete is the one kube-system write pod-doctor makes)', async () => {
    const r = await restartAwsNode(api(), NODE, {
      pollMs: 20,
      sleep: (ms: number) => new Promise((s) => setTimeout(s, ms)),
    });
    expect(r.ready).toBe(true);
  });
});

describe('nodes: pod-doctor changes only spec.unschedulable', () => {
  it('refuses a taint, a label or an annotation patched with its credentials; the cordon passes', async () => {
    for (const patch of [
      { spec: { taints: [{ key: 'x', effect: 'NoExecute' }] } },
      { metadata: { labels: { 'node-role.kubernetes.io/ingress': 'true' } } },
      { metadata: { annotations: { 'cluster-autoscaler.kubernetes.io/scale-down-disabled': 'true' } } },
      { spec: { unschedulable: true }, metadata: { finalizers: ['example.com/hold'] } },
    ]) {
      const r = await raw('PATCH', `/api/v1/nodes/${NODE}`, patch);
      expect(r.status, JSON.stringify(patch)).toBe(403);
      expect(String(r.body.message)).toMatch(/pod-doctor may change only spec.unschedulable/);
    }
    await expect(cordonNode(api(), NODE)).resolves.toMatchObject({ after: true });
  });
});

describe('request attributes and RBAC rules as the API server reads them', () => {
  const attrs = (method: string, path: string) => attributesOf(method, new URL(path, 'https://x'));
  it.each([
    ['GET', '/api/v1/pods', { verb: 'list', resource: 'pods' }],
    ['GET', '/api/v1/pods?watch=1', { verb: 'watch', resource: 'pods' }],
    ['GET', '/api/v1/pods?watch=false', { verb: 'list', resource: 'pods' }],
    ['GET', '/api/v1/watch/namespaces/kube-system/pods', { verb: 'watch', resource: 'pods', namespace: 'kube-system' }],
    [
      'GET',
      '/api/v1/namespaces/kube-system',
      { verb: 'get', resource: 'namespaces', name: 'kube-system', namespace: 'kube-system' },
    ],
    [
      'PUT',
      '/api/v1/namespaces/x/finalize',
      { verb: 'update', resource: 'namespaces', name: 'x', subresource: 'finalize' },
    ],
    [
      'POST',
      '/api/v1/namespaces/kube-system/pods/coredns-1/eviction',
      { verb: 'create', resource: 'pods', subresource: 'eviction', name: 'coredns-1' },
    ],
    ['DELETE', '/api/v1/namespaces/kube-system/pods', { verb: 'deletecollection', resource: 'pods' }],
    ['DELETE', '/api/v1/namespaces/kube-system/pods/a', { verb: 'delete', resource: 'pods', name: 'a' }],
    [
      'GET',
      '/apis/apps/v1/namespaces/kube-system/daemonsets/aws-node',
      { verb: 'get', apiGroup: 'apps', resource: 'daemonsets' },
    ],
  ])('%s %s', (method, path, expected) => {
    expect(attrs(method, path)).toMatchObject(expected);
  });

  it('a rule with resourceNames matches the request name whatever the verb; a create carries none', () => {
    const grants = [
      { rules: [{ apiGroups: [''], resources: ['pods', 'pods/eviction'], resourceNames: ['a'], verbs: ['*'] }] },
    ];
    expect(
      allowed(grants, { verb: 'create', apiGroup: '', resource: 'pods', subresource: 'eviction', name: 'a' }),
    ).toBe(true);
    expect(allowed(grants, { verb: 'create', apiGroup: '', resource: 'pods' })).toBe(false);
    expect(allowed(grants, { verb: 'list', apiGroup: '', resource: 'pods' })).toBe(false);
  });

  it('subresources match only as written: pods/eviction, */eviction or *; pods alone grants no eviction', () => {
    const rule = (resources: string[]) => [{ rules: [{ apiGroups: [''], resources, verbs: ['create'] }] }];
    const evict = {
      verb: 'create',
      apiGroup: '',
      resource: 'pods',
      subresource: 'eviction',
      namespace: 'x',
      name: 'a',
    };
    expect(allowed(rule(['pods']), evict)).toBe(false);
    expect(allowed(rule(['pods/eviction']), evict)).toBe(true);
    expect(allowed(rule(['*/eviction']), evict)).toBe(true);
    expect(allowed(rule(['*']), evict)).toBe(true);
    expect(allowed(groupGrants('pod-doctor'), evict)).toBe(false);
    expect(allowed(groupGrants('pod-doctor-actions'), evict)).toBe(true);
  });
});
