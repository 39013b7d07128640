/**
 * The Kubernetes side of the demo scenarios that need the cluster's API: the recorded cluster
 * (test/fixtures/kubernetes/cluster.json, real object shapes) on the demo node, with the scenario's
 * stuck pods, their kubelet events, the aws-node pod there and the VPC CNI ConfigMap.
 */
import { NODE_DNS, NODE_ID, REGION } from '../local/account-snapshot.js';
import type { RecordedCluster } from '../local/kube-api-server.js';
import { clusterOnNode, withWindowsNode } from '../local/local-cluster.js';

export interface ClusterSeed {
  /** Pods stuck in ContainerCreating on the node (namespace/name, owned by a ReplicaSet). */
  readonly stuck: readonly string[];
  /** The error of their FailedCreatePodSandBox events (the kubelet's text, as in the scenario's log line). */
  readonly sandboxError: string;
  /** aws-node on the node is Ready; false: Running, not Ready, restarting (ipamd down). */
  readonly awsNodeReady: boolean;
  /** `enable-windows-ipam` in ConfigMap kube-system/amazon-vpc-cni. */
  readonly windowsIpam: 'true' | 'false';
  /** The cluster runs a Windows node (where the Windows pod is scheduled). @default false */
  readonly windowsNode?: boolean;
  /**
   * The pods wait on a pull instead of a sandbox: their container waits in ImagePullBackOff on
   * `image`, and kubelet's `Failed` event carries `error` (then `sandboxError` is unused).
   */
  readonly pull?: { readonly image: string; readonly error: string };
  /** Workloads beyond the stuck pods (Deployments, ReplicaSets, their pods): applied last. */
  readonly workloads?: (c: RecordedCluster) => void;
}

type Obj = Record<string, unknown>;

function stuckPod(template: Obj, key: string, pull: ClusterSeed['pull']): Obj {
  const [namespace, name] = key.split('/');
  const pod = structuredClone(template) as { metadata: Obj & { ownerReferences: Obj[] }; spec: Obj };
  const owner = name.split('-').slice(0, -1).join('-');
  pod.metadata = {
    ...pod.metadata,
    name,
    namespace,
    uid: `uid-${name}`,
    labels: { app: owner },
    ownerReferences: [{ ...pod.metadata.ownerReferences[0], name: owner, uid: `owner-${owner}` }],
  };
  pod.spec = { ...pod.spec, nodeName: NODE_DNS };
  if (pull) {
    const status = structuredClone(pod as unknown as { status: { containerStatuses: Obj[] } }).status;
    status.containerStatuses = status.containerStatuses.map((c) => ({
      ...c,
      image: pull.image,
      state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${pull.image}"` } },
    }));
    (pod as unknown as { status: Obj }).status = status;
  }
  return pod;
}

/** kubelet's cause event of a stuck pod: FailedCreatePodSandBox, or Failed for a pull. */
function causeEvent(key: string, seed: ClusterSeed): Obj {
  const [namespace, name] = key.split('/');
  const event = sandboxEvent(namespace, name, seed.sandboxError);
  if (!seed.pull) return event;
  return {
    ...event,
    reason: 'Failed',
    message: `Failed to pull image "${seed.pull.image}": ${seed.pull.error}`,
  };
}

function sandboxEvent(namespace: string, name: string, error: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${name}.18b2c3d4e5f6a7b8`, namespace },
    involvedObject: { kind: 'Pod', namespace, name, apiVersion: 'v1' },
    reason: 'FailedCreatePodSandBox',
    message: `Failed to create pod sandbox: rpc error: code = Unknown desc = ${error}`,
    source: { component: 'kubelet', host: NODE_DNS },
    firstTimestamp: '2026-11-29T10:00:01Z',
    lastTimestamp: '2026-11-29T10:00:58Z',
    count: 12,
    type: 'Warning',
  };
}

/** The recorded cluster with the scenario's state on the demo node. */
export function seededCluster(seed: ClusterSeed): RecordedCluster {
  const c = clusterOnNode(NODE_DNS);
  const template = c.pods.find((p) => (p.metadata as { name: string }).name.startsWith('api-')) as Obj;
  c.pods = seed.stuck.map((key) => stuckPod(template, key, seed.pull));
  c.events = Object.fromEntries(seed.stuck.map((key) => [key, [causeEvent(key, seed)]]));
  const awsNode = c.awsNodePods.find((p) => (p.spec as { nodeName: string }).nodeName === NODE_DNS) as {
    status: { containerStatuses: { name: string; ready: boolean }[] };
  };
  for (const s of awsNode.status.containerStatuses) if (s.name === 'aws-node') s.ready = seed.awsNodeReady;
  const cm = c.vpcCniConfigMap as { data: Record<string, string> };
  cm.data['enable-windows-ipam'] = seed.windowsIpam;
  // The node's Node object names the demo account's instance (kubelet sets providerID from EC2 metadata).
  for (const n of c.nodes as { metadata: { name: string }; spec: { providerID?: string } }[])
    if (n.metadata.name === NODE_DNS) n.spec.providerID = `aws:///${REGION}a/${NODE_ID}`;
  const seeded = seed.windowsNode ? withWindowsNode(c) : c;
  seed.workloads?.(seeded);
  return seeded;
}

/**
 * The seeded cluster's stuck-pod events as the events reader meets them: moved from the recorded
 * per-pod lists into the API server's event collection, each with the uid the API server gives it.
 */
export function watchedEvents(c: RecordedCluster): Obj[] {
  const events = Object.values(c.events)
    .flat()
    .map((e) => ({ ...e, metadata: { ...(e.metadata as Obj), uid: `uid-${String((e.metadata as Obj).name)}` } }));
  c.events = {};
  return events;
}

/** image GC removed the ECR pause image; containerd pulls it again without credentials (kubelet's event). */
export const PAUSE_GC_401_ERROR = (pause: string) =>
  `failed to get sandbox image "${pause}": failed to pull image "${pause}": failed to pull and unpack image "${pause}": failed to resolve reference "${pause}": pulling from host ${pause.split('/')[0]} failed with status code [manifests 3.5]: 401 Unauthorized`;

/** pause-image-events-only: three pods of the node stuck in ContainerCreating, aws-node healthy. */
export const pauseEventsCluster = (pause: string): ClusterSeed => ({
  stuck: ['default/web-7d9c8-x2k4q', 'payments/api-6c8d9f7b5-x2k4q', 'default/web-7d9c8-p9z7t'],
  sandboxError: PAUSE_GC_401_ERROR(pause),
  awsNodeReady: true,
  windowsIpam: 'false',
});

/** The CNI plugin cannot reach ipamd: its socket is gone (aws-node restarting). */
export const IPAMD_SOCKET_ERROR =
  'failed to setup network for sandbox "c3d4": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix /var/run/aws-node/ipamd.sock: connect: no such file or directory"';

/** ipamd never finished initializing (no EC2 permissions): nothing listens on its gRPC port. */
export const IPAMD_REFUSED_ERROR =
  'failed to setup network for sandbox "a1b2": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp 127.0.0.1:50051: connect: connection refused"';

export const WINDOWS_IPAM_ERROR =
  'failed to setup network for sandbox "e5f6": plugin type="vpc-bridge" name="vpc" failed (add): Failed to parse Kubernetes args: pod does not have label vpc.amazonaws.com/PrivateIPv4Address';

/** ipamd-unreachable: aws-node on the node is not Ready, new pods there cannot get a network. */
export const IPAMD_CLUSTER: ClusterSeed = {
  stuck: ['default/web-7d9c8-x2k4q', 'payments/api-6c8d9f7b5-x2k4q'],
  sandboxError: IPAMD_SOCKET_ERROR,
  awsNodeReady: false,
  windowsIpam: 'false',
};

/** cni-policy-missing: ipamd fails to start without its EC2 permissions; aws-node is not Ready. */
export const CNI_POLICY_CLUSTER: ClusterSeed = {
  stuck: ['default/web-7d9c8-x2k4q'],
  sandboxError: IPAMD_REFUSED_ERROR,
  awsNodeReady: false,
  windowsIpam: 'false',
};

/** windows-ipam-label: the VPC CNI ConfigMap has Windows IPAM off; the Windows pod gets no IP label. */
export const WINDOWS_IPAM_CLUSTER: ClusterSeed = {
  stuck: ['default/iis-5d8c7b6f4-k2l9m'],
  sandboxError: WINDOWS_IPAM_ERROR,
  awsNodeReady: true,
  windowsIpam: 'false',
  windowsNode: true,
};

/** Pods of the node stuck in ContainerCreating on `sandboxError`; aws-node healthy. */
export const sandboxCluster = (stuck: readonly string[], sandboxError: string): ClusterSeed => ({
  stuck,
  sandboxError,
  awsNodeReady: true,
  windowsIpam: 'false',
});

/** Pods of the node waiting in ImagePullBackOff on `image` (kubelet's Failed event carries `error`). */
export const pullCluster = (stuck: readonly string[], image: string, error: string): ClusterSeed => ({
  stuck,
  sandboxError: '',
  pull: { image, error },
  awsNodeReady: true,
  windowsIpam: 'false',
});

/**
 * The CNI plugin could not get an address for the pod from ipamd (kubelet's event, as quoted in
 * https://seankhliao.com/blog/12024-09-13-eks-out-of-ips).
 */
export const NO_IP_ERROR =
  'failed to setup network for sandbox "b7c8": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container';
