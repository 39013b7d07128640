import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ClusterApi,
  KubernetesForbiddenError,
  KubernetesInputError,
  KubernetesThrottledError,
  KubernetesUnauthorizedError,
} from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache, TOKEN_PREFIX } from '../../lambdas/aws/readers/kubernetes/token.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';

const NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };

const server = new KubeApiServer();
let endpoint = '';
const sleeps: number[] = [];

function api(pageSize = 2): ClusterApi {
  const cluster = { name: 'prod', region: 'us-east-2', endpoint, certificateAuthorityData: server.caData };
  return new ClusterApi(cluster, new EksTokenCache(CREDS), {
    pageSize,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.seen.length = 0;
  server.faults.length = 0;
  server.cluster = recordedCluster();
  sleeps.length = 0;
  server.watchSteps = [];
});

describe('Kubernetes API through an EKS access entry (local HTTPS API server, recorded objects)', () => {
  it('authenticates with a k8s-aws-v1 bearer token and trusts only the cluster CA it was given', async () => {
    await api().stuckPods(NODE);
    expect(server.seen[0]?.authorization).toMatch(
      new RegExp(`^Bearer ${TOKEN_PREFIX.replace('.', '\\.')}[A-Za-z0-9_-]+$`),
    );
    const wrongCa = new ClusterApi(
      {
        name: 'prod',
        region: 'us-east-2',
        endpoint,
        certificateAuthorityData: Buffer.from(new KubeApiServer().cert).toString('base64'),
      },
      new EksTokenCache(CREDS),
    );
    await expect(wrongCa.stuckPods(NODE)).rejects.toThrow(/certificate|self.signed|verify/i);
  });

  it('lists the pods stuck on a node across every page of `continue`', async () => {
    const pods = await api(2).stuckPods(NODE);
    expect(pods.map((p) => `${p.namespace}/${p.name}:${p.reason}`)).toEqual([
      'default/nginx-7cdbb5f49f-2p6p2:ImagePullBackOff',
      'default/nginx-55d75d5f56-qrqmp:ErrImagePull',
      'team-a/api-5d8f7c9b6-x2kq9:ContainerCreating',
      'team-a/worker-0:ContainerCreating',
    ]);
    const lists = server.seen.filter((r) => r.path === '/api/v1/pods');
    expect(lists.length).toBe(3);
    expect(lists[0]?.query.get('fieldSelector')).toBe(`status.phase=Pending,spec.nodeName=${NODE}`);
    expect(lists[1]?.query.get('continue')).toBeTruthy();
    expect(pods[3]?.controller).toBe('StatefulSet');
  });

  it('restarts a list whose continue token expired (410 Gone) from the first page', async () => {
    server.faults.push({ path: '/api/v1/pods', status: 410, times: 1, onContinue: true });
    const pods = await api(2).stuckPods(NODE);
    expect(pods.length).toBe(4);
    const lists = server.seen.filter((r) => r.path === '/api/v1/pods');
    expect(lists.map((r) => Boolean(r.query.get('continue')))).toEqual([false, true, false, true, true]);
  });

  it('gives up when the restarted list expires again', async () => {
    server.faults.push({ path: '/api/v1/pods', status: 410, times: 2, onContinue: true });
    await expect(api(2).stuckPods(NODE)).rejects.toThrow(/410/);
  });

  it('classifies the events of a stuck pod with the log catalogue', async () => {
    const events = await api().podEvents('default', 'nginx-7cdbb5f49f-2p6p2');
    expect(events.map((e) => e.reason)).toEqual(['Failed', 'Failed', 'BackOff']);
    // "pull access denied … may require 'docker login'" is registry-auth (any pull access denied
    // against any registry in a pull context), whatever the registry then says about the repository.
    expect(events[0]?.class).toBe('registry-auth');
    const sandbox = await api().podEvents('team-a', 'api-5d8f7c9b6-x2kq9');
    expect(sandbox[0]).toMatchObject({ reason: 'FailedCreatePodSandBox', class: 'sandbox-image', count: 15 });
    const ip = await api().podEvents('default', 'nginx-6bf9f7cf5d-22q48');
    expect(ip[0]?.class).toBe('ip-exhaustion');
  });

  it('re-signs the token once after 401, then reports a missing access entry', async () => {
    server.faults.push({ path: '/api/v1/pods', status: 401, times: 1 });
    expect((await api().stuckPods(NODE)).length).toBe(4);
    server.faults.push({ path: '/api/v1/pods', status: 401, times: 2 });
    await expect(api().stuckPods(NODE)).rejects.toThrow(KubernetesUnauthorizedError);
  });

  it('reports 403 as what the access policy does not allow, without retrying', async () => {
    server.faults.push({ path: '/apis/apps/v1', status: 403, times: 5 });
    await expect(api().awsNodeDaemonSet()).rejects.toThrow(KubernetesForbiddenError);
    expect(server.seen.length).toBe(1);
  });

  it('retries 429 honouring Retry-After (bounded), then gives up with a throttling error', async () => {
    server.faults.push({
      path: '/api/v1/namespaces/kube-system/configmaps',
      status: 429,
      times: 2,
      headers: { 'retry-after': '2' },
    });
    expect(await api().vpcCniConfigMap()).toMatchObject({ 'enable-windows-ipam': 'false' });
    expect(sleeps).toEqual([2000, 2000]);
    server.faults.push({
      path: '/api/v1/namespaces/kube-system/configmaps',
      status: 429,
      times: 3,
      headers: { 'retry-after': '600' },
    });
    await expect(api().vpcCniConfigMap()).rejects.toThrow(KubernetesThrottledError);
    expect(sleeps.slice(2)).toEqual([5000, 5000]);
  });

  it('reads aws-node on the node (readiness, restarts) and the VPC CNI configuration', async () => {
    const [pod] = await api().awsNodePods(NODE);
    expect(pod?.status?.containerStatuses?.[0]).toMatchObject({ name: 'aws-node', ready: false });
    const ds = (await api().awsNodeDaemonSet()) as {
      spec: { template: { spec: { containers: { env: { name: string }[] }[] } } };
    };
    expect(ds.spec.template.spec.containers[0]?.env.map((e) => e.name)).toContain('ENABLE_PREFIX_DELEGATION');
  });

  it('answers undefined for a pod that is gone (404) and refuses names that are not DNS names', async () => {
    expect(await api().pod('default', 'nginx-gone')).toBeUndefined();
    await expect(api().stuckPods('x,metadata.name=y')).rejects.toThrow(KubernetesInputError);
    await expect(api().podEvents('default', 'a b')).rejects.toThrow(KubernetesInputError);
  });
});

describe('verification by positive signal: the stuck pods start', () => {
  const NGINX = 'default/nginx-7cdbb5f49f-2p6p2';
  const running = (p: Record<string, unknown>, ready = true): Record<string, unknown> => {
    const copy = structuredClone(p) as { status: Record<string, unknown> };
    copy.status.phase = 'Running';
    copy.status.containerStatuses = [{ name: 'app', ready, state: { running: { startedAt: '2026-11-30T10:06:00Z' } } }];
    return copy;
  };
  const target = () => {
    const p = server.cluster.pods[0] as { metadata: { namespace: string; name: string; uid: string } };
    return { namespace: p.metadata.namespace, name: p.metadata.name, uid: p.metadata.uid };
  };

  it('verifies as soon as the watch reports the pod Running and Ready, naming the pod and the time', async () => {
    const { verifyPodsStarted } = await import('../../lambdas/aws/kubernetes/verify-pods.js');
    const pod = server.cluster.pods[0] as Record<string, unknown>;
    server.watchSteps = [
      { afterMs: 50, type: 'MODIFIED', object: running(pod, false) },
      { afterMs: 150, type: 'MODIFIED', object: running(pod) },
    ];
    const began = Date.now();
    const v = await verifyPodsStarted(api(), NODE, [target()], { windowSeconds: 20 });
    expect(v).toMatchObject({ verified: true, stillStuck: [], gone: [] });
    expect(v.started.map((s) => s.pod)).toEqual([NGINX]);
    expect(Date.now() - began).toBeLessThan(5_000); // the watch ended on the signal, not the window
    const watch = server.seen.find((r) => r.query.get('watch') === 'true');
    expect(watch?.query.get('fieldSelector')).toBe(`spec.nodeName=${NODE}`);
    expect(Number(watch?.query.get('timeoutSeconds'))).toBeLessThanOrEqual(20);
  });

  it('fails verification when the pod stays stuck until the watch times out', async () => {
    const { verifyPodsStarted } = await import('../../lambdas/aws/kubernetes/verify-pods.js');
    server.watchSteps = [];
    const v = await verifyPodsStarted(api(), NODE, [target()], { windowSeconds: 1 });
    expect(v).toMatchObject({ verified: false, started: [], stillStuck: [NGINX] });
  });

  it('accepts a pod already running at the first read, without a watch', async () => {
    const { verifyPodsStarted } = await import('../../lambdas/aws/kubernetes/verify-pods.js');
    server.cluster.pods[0] = running(server.cluster.pods[0] as Record<string, unknown>);
    const v = await verifyPodsStarted(api(), NODE, [target()], { windowSeconds: 20 });
    expect(v.verified).toBe(true);
    expect(server.seen.some((r) => r.query.get('watch') === 'true')).toBe(false);
  });

  it('reports a deleted (controller re-created) pod as gone, not as started', async () => {
    const { verifyPodsStarted } = await import('../../lambdas/aws/kubernetes/verify-pods.js');
    const pod = server.cluster.pods[0] as Record<string, unknown>;
    server.watchSteps = [{ afterMs: 50, type: 'DELETED', object: pod }];
    const v = await verifyPodsStarted(api(), NODE, [target()], { windowSeconds: 2 });
    expect(v.gone).toEqual([NGINX]);
    expect(v.verified).toBe(false);
  });

  it('re-signs the token when the watch answers 401', async () => {
    const { verifyPodsStarted } = await import('../../lambdas/aws/kubernetes/verify-pods.js');
    const pod = server.cluster.pods[0] as Record<string, unknown>;
    server.faults.push({ path: '/api/v1/pods', status: 401, times: 1 });
    server.watchSteps = [{ afterMs: 50, type: 'MODIFIED', object: running(pod) }];
    const v = await verifyPodsStarted(api(), NODE, [target()], { windowSeconds: 10 });
    expect(v.verified).toBe(true);
  });
});

describe('cluster inspection: findings for the incident', () => {
  it('lists the stuck pods of a node with the class their events support', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    const { findings: f } = await inspectCluster(api(), { nodeName: NODE, failureClass: 'sandbox-image' });
    const stuck = f.find((x) => x.id === 'k8s.stuck-pods');
    expect(stuck?.status).toBe('fail');
    expect(stuck?.evidence).toMatchObject({ count: 4 });
    expect((stuck?.evidence.pods as { pod: string }[] | undefined)?.map((p) => p.pod)).toContain(
      'team-a/api-5d8f7c9b6-x2kq9',
    );
    expect(f.find((x) => x.id === 'k8s.node')).toMatchObject({ status: 'pass', evidence: { hostAccess: 'ssm' } });
  });

  it('narrows a pull incident to the pods waiting on its image', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    const { findings: f } = await inspectCluster(api(), { image: 'nginxx:latest', failureClass: 'image-not-found' });
    expect(f.find((x) => x.id === 'k8s.stuck-pods')?.evidence).toMatchObject({
      count: 1,
      scope: 'image nginxx:latest',
    });
  });

  it('reads aws-node and the VPC CNI settings for CNI classes; windows IPAM from the ConfigMap', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    const { findings: f } = await inspectCluster(api(), { nodeName: NODE, failureClass: 'windows-ipam' });
    expect(f.find((x) => x.id === 'k8s.aws-node')).toMatchObject({ status: 'fail', evidence: { restarts: 7 } });
    const cni = f.find((x) => x.id === 'k8s.vpc-cni-config');
    expect(cni).toMatchObject({ status: 'warn', evidence: { ENABLE_PREFIX_DELEGATION: 'true' } });
    expect(cni?.summary).toMatch(/DISABLE_TCP_EARLY_DEMUX/);
    expect(cni?.remediation).toMatch(/AWS_VPC_K8S_CNI_LOG_FILE=stdout/);
    expect(f.find((x) => x.id === 'k8s.windows-ipam')?.status).toBe('fail');
  });

  it('recognises EKS Auto Mode and Bottlerocket nodes: no SSM document on their host', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    const { findings: auto } = await inspectCluster(api(), {
      nodeName: 'i-0a1b2c3d4e5f60718',
      failureClass: 'sandbox-image',
    });
    expect(auto.find((x) => x.id === 'k8s.node')).toMatchObject({
      status: 'warn',
      summary: expect.stringMatching(
        /^EKS Auto Mode node: pod-doctor can read its pods, events and Node object; .*; pod-doctor cannot probe the host or repair the pause image: EKS Auto Mode allows no SSM/,
      ),
      evidence: { hostAccess: 'eks-auto-mode', logs: 'by-hand' },
    });
    const { findings: br } = await inspectCluster(api(), {
      nodeName: 'ip-192-168-153-54.us-east-2.compute.internal',
      failureClass: 'sandbox-image',
    });
    expect(br.find((x) => x.id === 'k8s.node')).toMatchObject({
      summary: expect.stringContaining("Run Command runs in Bottlerocket's control container"),
      evidence: { hostAccess: 'bottlerocket', logs: 'by-hand' },
      remediation: expect.stringContaining('apiclient exec admin sheltie'),
    });
  });

  it('turns a forbidden read into an error finding, never a pass', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    server.faults.push({ path: '/api/v1/pods', status: 403, times: 5 });
    const { findings: f } = await inspectCluster(api(), { nodeName: NODE, failureClass: 'sandbox-image' });
    expect(f.find((x) => x.id === 'k8s.stuck-pods')).toMatchObject({
      status: 'error',
      evidence: { error: 'KubernetesForbiddenError' },
    });
  });
});

describe('the shipped RBAC manifest (k8s/pod-doctor-rbac.yaml) as the authorizer', () => {
  it('allows every call pod-doctor makes and nothing else was refused in this file', async () => {
    const { inspectCluster } = await import('../../lambdas/aws/kubernetes/inspect.js');
    await inspectCluster(api(), { nodeName: NODE, failureClass: 'windows-ipam' });
    expect(server.forbidden).toEqual([]);
    expect(server.seen.length).toBeGreaterThan(5);
  });

  it('refuses what it does not grant: secrets, other ConfigMaps, deleting pods', async () => {
    const { allowed, groupGrants } = await import('../../local/rbac.js');
    const g = groupGrants('pod-doctor');
    expect(allowed(g, { verb: 'get', apiGroup: '', resource: 'secrets', namespace: 'kube-system', name: 'x' })).toBe(
      false,
    );
    expect(
      allowed(g, { verb: 'get', apiGroup: '', resource: 'configmaps', namespace: 'kube-system', name: 'aws-auth' }),
    ).toBe(false);
    expect(allowed(g, { verb: 'list', apiGroup: '', resource: 'configmaps', namespace: 'kube-system' })).toBe(false);
    expect(allowed(g, { verb: 'delete', apiGroup: '', resource: 'pods', namespace: 'default', name: 'x' })).toBe(false);
    expect(
      allowed(g, {
        verb: 'get',
        apiGroup: '',
        resource: 'configmaps',
        namespace: 'kube-system',
        name: 'amazon-vpc-cni',
      }),
    ).toBe(true);
    expect(
      allowed(g, { verb: 'get', apiGroup: '', resource: 'configmaps', namespace: 'default', name: 'amazon-vpc-cni' }),
    ).toBe(false);
    expect(allowed(groupGrants('someone-else'), { verb: 'list', apiGroup: '', resource: 'pods' })).toBe(false);
  });
});

describe('scheduled sweep: stuck pods that produced no log line', () => {
  const NOW = Date.parse('2026-11-30T10:30:00Z');

  it('turns stuck pods older than the minimum age into occurrences of the class their events support', async () => {
    const { sweepCluster } = await import('../../lambdas/aws/kubernetes/sweep.js');
    const r = await sweepCluster(api(), 'prod', NOW);
    expect(r.stuck).toBe(5);
    const byPod = Object.fromEntries(r.occurrences.map((o) => [`${o.entities.namespace}/${o.entities.pod}`, o]));
    expect(byPod['default/nginx-7cdbb5f49f-2p6p2']).toMatchObject({
      class: 'registry-auth', // pull access denied: registry-auth
      entities: { image: 'nginxx:latest', node: NODE },
    });
    expect(byPod['default/nginx-6bf9f7cf5d-22q48']?.class).toBe('ip-exhaustion');
    expect(byPod['team-a/api-5d8f7c9b6-x2kq9']?.class).toBe('sandbox-image');
    // no events recorded for it: kubelet's waiting message names the cause
    expect(byPod['default/nginx-55d75d5f56-qrqmp']?.class).toBe('image-not-found');
    expect(r.unexplained).toEqual(['team-a/worker-0']);
  });

  it('takes the node from spec.nodeName, never from the event text', async () => {
    const { sweepCluster } = await import('../../lambdas/aws/kubernetes/sweep.js');
    const events = server.cluster.events['team-a/api-5d8f7c9b6-x2kq9'] as { message: string }[];
    events[0] = {
      ...events[0],
      message: `${events[0]?.message} on node ip-10-9-9-9.ec2.internal i-0fedcba9876543210`,
    } as never;
    const r = await sweepCluster(api(), 'prod', NOW);
    const o = r.occurrences.find((x) => x.entities.pod === 'api-5d8f7c9b6-x2kq9');
    expect(o?.entities.node).toBe(NODE);
    expect(o?.entities.instanceId).toBeUndefined();
  });

  it('leaves young pods alone (a pull in progress) and bounds the pods it examines', async () => {
    const { sweepCluster } = await import('../../lambdas/aws/kubernetes/sweep.js');
    const young = await sweepCluster(api(), 'prod', Date.parse('2026-11-30T10:02:00Z'));
    expect(young.stuck).toBe(0);
    const bounded = await sweepCluster(api(), 'prod', NOW, { maxPods: 2 });
    expect(bounded.examined).toBe(2);
  });
});
