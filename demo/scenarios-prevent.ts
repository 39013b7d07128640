/**
 * Scenarios of issue 35 (prevent, not only repair): one cause fixed once, through the door, rather
 * than pod by pod or node by node.
 */
import { APP_IMAGE, NODE_DNS } from '../local/account-snapshot.js';
import type { RecordedCluster } from '../local/kube-api-server.js';
import type { ClusterSeed } from './cluster-seeds.js';
import { pull, type Scenario } from './scenario-kit.js';

type Obj = Record<string, unknown>;

/** The tag someone typed: v2.3.11 for v2.3.1 (the image-tag-typo scenario's typo). */
export const TYPO_IMAGE = APP_IMAGE.replace('v2.3.1', 'v2.3.11');
const NOT_FOUND = `failed to resolve reference "${TYPO_IMAGE}": ${TYPO_IMAGE}: not found`;
const NAMESPACE = 'payments';
const FAILING_RS = 'api-6c8d9f7b5';
const RUNNING_RS = 'api-5f6d8c9b4';
const STUCK = [`${NAMESPACE}/${FAILING_RS}-x2k4q`, `${NAMESPACE}/${FAILING_RS}-m7n8p`];

export interface RolloutSeedOptions {
  /** Labels and annotations that name a GitOps controller on the Deployment (Argo CD, Flux). */
  readonly gitops?: Readonly<Record<string, string>>;
  /** Minutes between the template change and the first failing pod. @default 1 */
  readonly failedAfterMinutes?: number;
  /** Ready pods of the previous revision. @default 3 */
  readonly previousReady?: number;
}

const template = (image: string, hash: string) => ({
  metadata: { labels: { app: 'api', 'pod-template-hash': hash } },
  spec: { containers: [{ name: 'api', image }] },
});

function replicaSet(
  name: string,
  revision: number,
  image: string,
  created: string,
  o: { replicas: number; ready: number },
) {
  const hash = name.slice('api-'.length);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `owner-${name}`,
      labels: { app: 'api', 'pod-template-hash': hash },
      annotations: { 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'uid-deployment-api', controller: true },
      ],
      creationTimestamp: created,
    },
    spec: { replicas: o.replicas, selector: { matchLabels: { app: 'api' } }, template: template(image, hash) },
    status: { replicas: o.replicas, readyReplicas: o.ready, availableReplicas: o.ready },
  };
}

/**
 * Deployment payments/api mid-rollout: revision 2 (the typo tag, created 09:58) has its pods in
 * ErrImagePull / ImagePullBackOff, revision 1 (v2.3.1) still runs 3 ready pods (the rolling update
 * keeps them while the new ones are unavailable).
 */
export function rolloutWorkloads(o: RolloutSeedOptions = {}) {
  return (c: RecordedCluster): void => {
    const failedAt = new Date(Date.parse('2026-11-29T09:58:00Z') + (o.failedAfterMinutes ?? 1) * 60_000).toISOString();
    const gitops = o.gitops ?? {};
    const labels = Object.fromEntries(Object.entries(gitops).filter(([k]) => !k.endsWith('/tracking-id')));
    const annotations = Object.fromEntries(Object.entries(gitops).filter(([k]) => k.endsWith('/tracking-id')));
    c.deployments = [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'api',
          namespace: NAMESPACE,
          uid: 'uid-deployment-api',
          resourceVersion: '41001',
          generation: 2,
          labels: { app: 'api', ...labels },
          annotations: { 'deployment.kubernetes.io/revision': '2', ...annotations },
        },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'api' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
          template: template(TYPO_IMAGE, '6c8d9f7b5'),
        },
        status: { replicas: 5, updatedReplicas: 2, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 2 },
      },
    ];
    c.replicaSets = [
      replicaSet(RUNNING_RS, 1, APP_IMAGE, '2026-11-20T08:00:00Z', { replicas: 3, ready: o.previousReady ?? 3 }),
      replicaSet(FAILING_RS, 2, TYPO_IMAGE, '2026-11-29T09:58:00Z', { replicas: 2, ready: 0 }),
    ];
    for (const p of c.pods as (Obj & { metadata: Obj; spec: Obj; status: Obj })[]) {
      if (!String(p.metadata.name).startsWith(FAILING_RS)) continue;
      p.metadata.labels = { app: 'api', 'pod-template-hash': '6c8d9f7b5' };
      p.metadata.creationTimestamp = failedAt;
      p.spec = { ...p.spec, containers: [{ name: 'api', image: TYPO_IMAGE }] };
      p.status = {
        ...p.status,
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'api',
            image: TYPO_IMAGE,
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${TYPO_IMAGE}"` } },
          },
        ],
      };
    }
    // kubelet's pull events on the failing pods (the seed's default events are sandbox failures).
    for (const key of STUCK) c.events[key] = [pullEvent(key)];
    const running = Array.from({ length: o.previousReady ?? 3 }, (_, i) => runningPod(`${RUNNING_RS}-k${i}q${i}z`));
    c.runningPods = [...(c.runningPods ?? []), ...running];
  };
}

function pullEvent(key: string): Obj {
  const [namespace, name] = key.split('/');
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.18b2c3d4e5f6a7c9`, namespace },
    involvedObject: { kind: 'Pod', namespace, name, apiVersion: 'v1' },
    reason: 'Failed',
    message: `Failed to pull image "${TYPO_IMAGE}": rpc error: code = NotFound desc = ${NOT_FOUND}`,
    source: { component: 'kubelet', host: NODE_DNS },
    firstTimestamp: '2026-11-29T09:59:02Z',
    lastTimestamp: '2026-11-29T10:00:58Z',
    count: 6,
    type: 'Warning',
  };
}

function runningPod(name: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: `uid-${name}`,
      labels: { app: 'api', 'pod-template-hash': RUNNING_RS.slice('api-'.length) },
      creationTimestamp: '2026-11-20T08:00:30Z',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: RUNNING_RS, uid: `owner-${RUNNING_RS}`, controller: true },
      ],
    },
    spec: { nodeName: NODE_DNS, containers: [{ name: 'api', image: APP_IMAGE }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'api',
          image: APP_IMAGE,
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: '2026-11-20T08:00:40Z' } },
        },
      ],
    },
  };
}

/** The cluster of rollout-image-typo: the failing revision's pods on the demo node, the previous revision running. */
export const rolloutCluster = (o: RolloutSeedOptions = {}): ClusterSeed => ({
  stuck: STUCK,
  sandboxError: NOT_FOUND,
  awsNodeReady: true,
  windowsIpam: 'false',
  workloads: rolloutWorkloads(o),
});

export const PREVENT_SCENARIOS: readonly Scenario[] = [
  {
    name: 'rollout-image-typo',
    title:
      'A rollout changed Deployment payments/api to a tag that does not exist; its new pods cannot pull while the previous revision runs: rolled back (approved by the demo), the pods Running',
    lines: [pull(TYPO_IMAGE, NOT_FOUND, STUCK[0])],
    repeat: 40,
    cluster: rolloutCluster(),
    node: { kind: 'simulated', probe: [] },
    modes: { 'image-not-found': 'approve' },
    approval: 'approve',
    expect: {
      class: 'image-not-found',
      failing: ['ecr.image-exists', 'k8s.rollout'],
      outcome: 'remedied and verified: roll Deployment payments/api back from revision 2 to revision 1',
      remedy: 'rollback-deployment',
    },
  },
];
