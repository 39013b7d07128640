import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  handleKubernetesRequest,
  type KubernetesDeps,
  type KubernetesResult,
  kubernetesRequestSchema,
  NodeIdentityMismatchError,
} from '../../lambdas/aws/kubernetes/service.js';
import { EksTokenCache } from '../../lambdas/aws/kubernetes/token.js';
import type { ApplyRecord } from '../../lambdas/core/remedy/apply-path.js';
import { createHandler } from '../../lambdas/handlers/kubernetes.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { lambdaContext } from '../support/lambda-context.js';

const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const server = new KubeApiServer({}, { awsNodeReadyAfterMs: 200 });
let deps: KubernetesDeps;

beforeAll(async () => {
  const endpoint = await server.start();
  deps = {
    endpoint: async (name) => ({ name, region: 'us-east-2', endpoint, certificateAuthorityData: server.caData }),
    tokens: new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
    wait: { timeoutMs: 3_000, pollMs: 50 },
  };
});
afterAll(() => server.stop());
beforeEach(() => {
  server.seen.length = 0;
  server.cluster = recordedCluster();
  server.writes.behaviour.awsNodeReadyAfterMs = 200;
  delete server.writes.behaviour.evictedGoneAfterMs;
});

async function run(request: Record<string, unknown>): Promise<KubernetesResult> {
  return handleKubernetesRequest(kubernetesRequestSchema.parse({ cluster: 'prod', ...request }), deps);
}
/** The plan's target as Decide writes it: restart-aws-node names the node it resolved. */
const target = (kind: string) => (kind === 'restart-aws-node' ? { kind, nodeName: NODE } : { kind });
async function remedy(
  kind: string,
  phase: 'prepare' | 'apply',
  node: object = { privateDnsName: NODE },
  planned: object = target(kind),
) {
  const r = await run({ action: 'remedy', phase, remedy: planned, node });
  return (r as { record: ApplyRecord }).record;
}
type Drained = Extract<KubernetesResult, { action: 'drain-node' }>;
const writes = () => server.seen.filter((s) => s.method !== 'GET');
const windowsIpam = () =>
  (server.cluster.vpcCniConfigMap as { data: Record<string, string> }).data['enable-windows-ipam'];

describe('cluster remedy restart-aws-node (ipamd unreachable; CNI permissions after the policy attach)', () => {
  it('prepare: re-checks the cause and shows the diff, changing nothing', async () => {
    const r = await remedy('restart-aws-node', 'prepare');
    expect(r.status).toBe('dry-run');
    expect(r.reason).toBe(`dry run: aws-node aws-node-7xk2p on ${NODE} is not Ready`);
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

  it('not needed when aws-node is Ready and nothing is stuck on the node', async () => {
    const pod = server.cluster.awsNodePods[0] as { status: { containerStatuses: { ready: boolean }[] } };
    for (const c of pod.status.containerStatuses) c.ready = true;
    server.cluster.pods = server.cluster.pods.filter(
      (p) =>
        (p.spec as { nodeName?: string }).nodeName !== NODE ||
        (p.metadata as { name: string }).name.startsWith('batch'),
    );
    const r = await remedy('restart-aws-node', 'apply');
    expect(r.status).toBe('not-needed');
    expect(writes()).toEqual([]);
  });

  it('never runs without the resolved node, and refuses a node that is not a DNS name', async () => {
    await expect(remedy('restart-aws-node', 'apply', {})).rejects.toThrow(NodeIdentityMismatchError);
    await expect(remedy('restart-aws-node', 'apply', { privateDnsName: 'x,metadata.name=y' })).rejects.toThrow();
    await expect(
      remedy('restart-aws-node', 'apply', undefined, { kind: 'restart-aws-node', nodeName: 'x,metadata.name=y' }),
    ).rejects.toThrow();
    // The plan's target always names the node: a target without one is refused, not guessed.
    await expect(remedy('restart-aws-node', 'apply', undefined, { kind: 'restart-aws-node' })).rejects.toThrow();
    expect(writes()).toEqual([]);
  });

  it.each(['prepare', 'apply'] as const)(
    '%s: refuses when the plan names another node than the resolved one, acting on neither',
    async (phase) => {
      const other = 'ip-192-168-12-7.us-east-2.compute.internal';
      const refused = remedy(
        'restart-aws-node',
        phase,
        { privateDnsName: NODE },
        { kind: 'restart-aws-node', nodeName: other },
      );
      await expect(refused).rejects.toThrow(NodeIdentityMismatchError);
      await expect(refused).rejects.toThrow(
        `the plan's target node ${other} is not the node resolved from EC2 (${NODE}): nothing done`,
      );
      expect(server.seen).toEqual([]);
    },
  );

  it('the handler counts a refused node mismatch (metric NodeIdentityMismatch) and throws it by name', async () => {
    // A single metric (its own EMF document): an instance of Metrics other than the shared one.
    const added = vi.spyOn(Metrics.prototype, 'addMetric');
    const handler = createHandler(deps);
    const event = {
      action: 'remedy',
      phase: 'apply',
      cluster: 'prod',
      remedy: { kind: 'restart-aws-node', nodeName: 'ip-192-168-12-7.us-east-2.compute.internal' },
      node: { privateDnsName: NODE },
    };
    await expect(handler(event, lambdaContext())).rejects.toMatchObject({ name: 'NodeIdentityMismatchError' });
    expect(added).toHaveBeenCalledWith('NodeIdentityMismatch', 'Count', 1);
    added.mockRestore();
    expect(writes()).toEqual([]);
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

  it('is not applicable without the VPC CNI ConfigMap', async () => {
    delete server.cluster.vpcCniConfigMap;
    const r = await remedy('enable-windows-ipam', 'apply');
    expect(r.status).toBe('not-applicable');
  });
});

describe('node actions through the Kubernetes function', () => {
  it('cordons and uncordons the resolved node, restoring the recorded state', async () => {
    const c = (await run({ action: 'cordon', node: { privateDnsName: NODE } })) as { cordon: object };
    expect(c.cordon).toEqual({ node: NODE, before: false, after: true, changed: true });
    const u = await run({ action: 'uncordon', node: { privateDnsName: NODE }, cordoned: c.cordon });
    expect(u).toMatchObject({ action: 'uncordon', cordon: { before: true, after: false, changed: true } });
  });

  it('drains (approve-always action) and evicts the named stuck pods', async () => {
    const d = await run({ action: 'drain-node', node: { privateDnsName: NODE } });
    expect(d).toMatchObject({ action: 'drain-node', drain: { complete: false, unmanaged: ['default/debug-shell'] } });
    server.cluster = recordedCluster();
    const e = await run({
      action: 'evict-stuck-pods',
      node: { privateDnsName: NODE },
      pods: [{ namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2' }],
    });
    expect(e).toMatchObject({ evictions: { evicted: ['default/nginx-7cdbb5f49f-2p6p2'] } });
  });

  it('a drain waits for the evicted pods to leave and says how many are gone vs still terminating', async () => {
    server.writes.behaviour.evictedGoneAfterMs = 150;
    const gone = (await run({ action: 'drain-node', node: { privateDnsName: NODE } })) as Drained;
    expect(gone.drain.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(gone.drain.terminated).toEqual(gone.drain.evicted);
    expect(gone.drain.terminating).toEqual([]);
    server.cluster = recordedCluster();
    server.writes.behaviour.evictedGoneAfterMs = 60_000;
    const slow = (await handleKubernetesRequest(
      kubernetesRequestSchema.parse({ cluster: 'prod', action: 'drain-node', node: { privateDnsName: NODE } }),
      { ...deps, wait: { timeoutMs: 300, pollMs: 50 } },
    )) as Drained;
    expect(slow.drain.evicted).toContain('default/cache-5f8d7b9c4-k2m4p');
    expect(slow.drain.terminating).toEqual(slow.drain.evicted);
    expect(slow.drain.terminated).toEqual([]);
  });

  it('leaves a node someone else cordoned to them when asked (node auto repair drains it): nothing evicted', async () => {
    const node = server.cluster.nodes.find((n) => (n.metadata as { name: string }).name === NODE) as {
      spec?: Record<string, unknown>;
    };
    node.spec = { ...node.spec, unschedulable: true };
    const d = await run({ action: 'drain-node', node: { privateDnsName: NODE }, skipIfCordoned: true });
    expect(d).toMatchObject({ drain: { leftToOthers: true, evicted: [], cordon: { before: true, changed: false } } });
    expect(writes()).toEqual([]);
  });
});
