import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsNodeRestartPort, windowsIpamPort } from '../../lambdas/aws/door/cluster-ports.js';
import { ClusterWrites } from '../../lambdas/aws/door/cluster-writes.js';
import { drainNode, evictStuckPods } from '../../lambdas/aws/door/evictions.js';
import { cordonNode, uncordonNode, type WaitOptions } from '../../lambdas/aws/door/kubernetes-actions.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { type ApplyRecord, runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import { awsNodeRestartPath, windowsIpamPath } from '../../lambdas/core/remedy/kubernetes-paths.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { withWindowsNode } from '../../local/local-cluster.js';

/** The door's cluster remedies and node actions against the local API server (the shipped RBAC). */
const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 200 });
let endpoint = '';
const WAIT: WaitOptions = { timeoutMs: 3_000, pollMs: 50 };

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.seen.length = 0;
  server.cluster = withWindowsNode(recordedCluster());
  server.writes.behaviour.awsNodeReadyAfterMs = 200;
  delete server.writes.behaviour.evictedGoneAfterMs;
});

const writesOf = () =>
  new ClusterWrites(
    new ClusterApi(
      { name: 'prod', region: 'us-east-2', endpoint, certificateAuthorityData: server.caData },
      new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
    ),
  );
const now = () => Date.parse('2026-11-29T10:00:00Z');

/** A cluster remedy through its apply path, as the door runs it (prepare: the dry run). */
async function remedy(
  kind: 'restart-aws-node' | 'enable-windows-ipam',
  phase: 'prepare' | 'apply',
  o: { readonly failureClass?: string; readonly cniPolicyAttached?: boolean; readonly wait?: WaitOptions } = {},
): Promise<ApplyRecord> {
  const w = writesOf();
  const path =
    kind === 'enable-windows-ipam'
      ? windowsIpamPath(windowsIpamPort(w))
      : awsNodeRestartPath({ kind, nodeName: NODE }, awsNodeRestartPort(w, o.wait ?? WAIT), {
          failureClass: o.failureClass ?? 'ipamd-unavailable',
          cniPolicyAttached: o.cniPolicyAttached ?? false,
        });
  return runApplyPath(path as Parameters<typeof runApplyPath>[0], { dryRun: phase === 'prepare', now });
}
const writes = () => server.seen.filter((s) => s.method !== 'GET');
const windowsIpam = () =>
  (server.cluster.vpcCniConfigMap as { data: Record<string, string> }).data['enable-windows-ipam'];
const readyAwsNode = () => {
  const pod = server.cluster.awsNodePods[0] as { status: { containerStatuses: { ready: boolean }[] } };
  for (const c of pod.status.containerStatuses) c.ready = true;
};

describe('cluster remedy restart-aws-node (ipamd unreachable; CNI permissions after the policy attach)', () => {
  it('prepare: re-checks the cause and shows the diff, changing nothing', async () => {
    const r = await remedy('restart-aws-node', 'prepare');
    expect(r.status).toBe('dry-run');
    expect(r.reason).toBe(
      `dry run: aws-node aws-node-7xk2p on ${NODE} is not Ready (7 restarts): ipamd does not answer its readiness probe`,
    );
    expect(r.diff).toEqual([
      `- aws-node on ${NODE}: aws-node-7xk2p not Ready, 7 restarts`,
      `  stuck pods on ${NODE}: default/nginx-55d75d5f56-qrqmp, default/nginx-7cdbb5f49f-2p6p2, team-a/api-5d8f7c9b6-x2kq9, team-a/worker-0`,
      `+ aws-node on ${NODE}: a new pod of DaemonSet aws-node Ready, 0 restarts`,
    ]);
    expect(writes()).toEqual([]);
  });

  it('apply: deletes the pod, verifies by the replacement Ready, records before and after', async () => {
    const r = await remedy('restart-aws-node', 'apply');
    expect(r.status).toBe('verified');
    expect(r.reason).toMatch(new RegExp(`^aws-node aws-node-\\w+ replaced aws-node-7xk2p on ${NODE} and is Ready`));
    expect(r.applied).toEqual({ nodeName: NODE, deletedPod: 'aws-node-7xk2p', deletedUid: 'aws-node-uid' });
    expect(r.after[0]).toMatch(/^aws-node on .*: aws-node-\w+ Ready, 0 restarts$/);
    expect(writes().map((w) => `${w.method} ${w.path}`)).toEqual([
      'DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p',
    ]);
  });

  it('apply: a replacement that never gets Ready fails verification; a restart has no rollback, and says so', async () => {
    server.writes.behaviour.awsNodeReadyAfterMs = undefined;
    const r = await remedy('restart-aws-node', 'apply');
    expect(r.status).toBe('rollback-failed');
    expect(r.verification?.reason).toMatch(/is not Ready/);
    expect(r.reason).toMatch(/IrreversibleActionError: a restart cannot be undone/);
  });

  it("aws-node Ready is no cause, however many pods are stuck on the node: a tenant's own pod is no proof", async () => {
    readyAwsNode();
    const r = await remedy('restart-aws-node', 'apply');
    expect(r.status).toBe('not-needed');
    expect(r.reason).toMatch(/is Ready: ipamd answers \(pods stuck on the node are not aws-node's evidence\)/);
    expect(r.before[1]).toMatch(/^stuck pods on .*: default\/nginx/);
    expect(writes()).toEqual([]);
  });

  it('CNI permissions: a Ready aws-node restarts once the door attached the CNI policy in this incident', async () => {
    readyAwsNode();
    const r = await remedy('restart-aws-node', 'apply', { failureClass: 'cni-permissions', cniPolicyAttached: true });
    expect(r.status).toBe('verified');
    expect((await remedy('restart-aws-node', 'prepare', { failureClass: 'cni-permissions' })).status).toBe(
      'not-needed',
    );
  });
});

describe('cluster remedy enable-windows-ipam (windows-ipam)', () => {
  it('prepare shows the ConfigMap diff; apply sets it, verifies and records the value before', async () => {
    const dry = await remedy('enable-windows-ipam', 'prepare');
    expect(dry).toMatchObject({
      status: 'dry-run',
      diff: [
        '- ConfigMap kube-system/amazon-vpc-cni enable-windows-ipam: false',
        '+ ConfigMap kube-system/amazon-vpc-cni enable-windows-ipam: true',
      ],
    });
    expect(writes()).toEqual([]);
    const r = await remedy('enable-windows-ipam', 'apply');
    expect(r).toMatchObject({ status: 'verified', applied: { before: 'false' } });
    expect(windowsIpam()).toBe('true');
    expect((await remedy('enable-windows-ipam', 'apply')).status).toBe('not-needed');
  });

  it('is not applicable without a Windows node (the kubelet-set OS label), whatever a pod event says', async () => {
    server.cluster.nodes = server.cluster.nodes.filter(
      (n) => (n.metadata as { labels?: Record<string, string> }).labels?.['kubernetes.io/os'] !== 'windows',
    );
    const r = await remedy('enable-windows-ipam', 'apply');
    expect(r.status).toBe('not-applicable');
    expect(r.reason).toMatch(/no Windows node/);
    expect(writes()).toEqual([]);
  });

  it('is not applicable without the VPC CNI ConfigMap', async () => {
    delete server.cluster.vpcCniConfigMap;
    const r = await remedy('enable-windows-ipam', 'apply');
    expect(r.status).toBe('not-applicable');
  });
});

describe("the door's node actions through the Kubernetes API", () => {
  it('cordons and uncordons the resolved node, restoring the recorded state', async () => {
    const c = await cordonNode(writesOf(), NODE);
    expect(c).toEqual({ node: NODE, before: false, after: true, changed: true });
    const u = await uncordonNode(writesOf(), NODE, c);
    expect(u).toMatchObject({ before: true, after: false, changed: true });
  });

  it('drains (approve-always action) and evicts the named stuck pods', async () => {
    const d = await drainNode(writesOf(), NODE, WAIT);
    expect(d).toMatchObject({ complete: false, unmanaged: ['default/debug-shell'] });
    server.cluster = recordedCluster();
    const e = await evictStuckPods(writesOf(), NODE, [{ namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2' }]);
    expect(e).toMatchObject({ evicted: ['default/nginx-7cdbb5f49f-2p6p2'] });
  });

  it('a drain waits for the evicted pods to leave and says how many are gone vs still terminating', async () => {
    server.writes.behaviour.evictedGoneAfterMs = 150;
    const gone = await drainNode(writesOf(), NODE, WAIT);
    expect(gone.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(gone.terminated).toEqual(gone.evicted);
    expect(gone.terminating).toEqual([]);
    server.cluster = recordedCluster();
    server.writes.behaviour.evictedGoneAfterMs = 60_000;
    const slow = await drainNode(writesOf(), NODE, { timeoutMs: 300, pollMs: 50 });
    expect(slow.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(slow.terminating).toEqual(slow.evicted);
    expect(slow.terminated).toEqual([]);
  });

  it('leaves a node someone else cordoned to them when asked (node auto repair drains it): nothing evicted', async () => {
    const node = server.cluster.nodes.find((n) => (n.metadata as { name: string }).name === NODE) as {
      spec?: Record<string, unknown>;
    };
    node.spec = { ...node.spec, unschedulable: true };
    const d = await drainNode(writesOf(), NODE, { ...WAIT, skipIfCordoned: true });
    expect(d).toMatchObject({ leftToOthers: true, evicted: [], cordon: { before: true, changed: false } });
    expect(writes()).toEqual([]);
  });
});
