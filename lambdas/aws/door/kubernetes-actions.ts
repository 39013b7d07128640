import { type AwsNodeState, awsNodeOn } from '../readers/kubernetes/aws-node.js';
import type { ClusterWrites } from './cluster-writes.js';

/**
 * The door's Kubernetes actions on one node or the VPC CNI settings, each through the cluster's
 * writes (and its reads). Each records the state before it so it can be undone, and touches only
 * objects named by trusted fields: the node the door resolved from EC2, the aws-node DaemonSet's pod
 * on it, ConfigMap amazon-vpc-cni.
 */

export class NodeNotFoundError extends Error {
  override readonly name = 'NodeNotFoundError';
}
export class AwsNodePodNotFoundError extends Error {
  override readonly name = 'AwsNodePodNotFoundError';
}
export class VpcCniConfigMapMissingError extends Error {
  override readonly name = 'VpcCniConfigMapMissingError';
}

/** The node's `spec.unschedulable` before and after a cordon or uncordon. */
export interface CordonRecord {
  readonly node: string;
  readonly before: boolean;
  readonly after: boolean;
  /** False when the node already was in the wanted state (nothing was patched). */
  readonly changed: boolean;
}

async function unschedulable(w: ClusterWrites, nodeName: string): Promise<boolean> {
  const node = await w.api.node(nodeName);
  if (!node) throw new NodeNotFoundError(`node ${nodeName} does not exist`);
  return node.spec?.unschedulable === true;
}

/** Cordons the node (`spec.unschedulable: true`), recording whether it already was. */
export async function cordonNode(w: ClusterWrites, nodeName: string): Promise<CordonRecord> {
  const before = await unschedulable(w, nodeName);
  if (before) return { node: nodeName, before, after: true, changed: false };
  const node = await w.setUnschedulable(nodeName, true);
  return { node: nodeName, before, after: node.spec?.unschedulable === true, changed: true };
}

/**
 * Uncordons the node. Given the record of pod-doctor's own cordon, restores the state before it:
 * a node someone else had cordoned stays cordoned.
 */
export async function uncordonNode(w: ClusterWrites, nodeName: string, cordoned?: CordonRecord): Promise<CordonRecord> {
  const before = await unschedulable(w, nodeName);
  if (!before || cordoned?.before === true) return { node: nodeName, before, after: before, changed: false };
  const node = await w.setUnschedulable(nodeName, null);
  return { node: nodeName, before, after: node.spec?.unschedulable === true, changed: true };
}

export interface WaitOptions {
  /** How long to wait for the replacement to be Ready. @default 120 s */
  readonly timeoutMs?: number;
  /** Interval between reads. @default 2 s */
  readonly pollMs?: number;
  readonly clock?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface AwsNodeRestart {
  readonly node: string;
  readonly deleted: AwsNodeState;
  /** The DaemonSet's new pod on the node, as last seen. */
  readonly replacement?: AwsNodeState;
  /** Seconds from the delete until the replacement was Ready. */
  readonly readyAfterSeconds?: number;
  readonly ready: boolean;
}

/**
 * Restarts aws-node on one node: deletes the DaemonSet's pod there (precondition on its uid) and
 * waits until the controller's replacement runs and is Ready, or the timeout passes.
 */
export async function restartAwsNode(w: ClusterWrites, nodeName: string, o: WaitOptions = {}): Promise<AwsNodeRestart> {
  const { api } = w;
  const clock = o.clock ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const old = await awsNodeOn(api, nodeName);
  if (!old) throw new AwsNodePodNotFoundError(`no pod of DaemonSet kube-system/aws-node on node ${nodeName}`);
  const start = clock();
  await w.deletePod('kube-system', old.pod, old.uid);
  let replacement: AwsNodeState | undefined;
  for (;;) {
    const now = await awsNodeOn(api, nodeName);
    if (now && now.uid !== old.uid) replacement = now;
    if (replacement?.ready)
      return { node: nodeName, deleted: old, replacement, readyAfterSeconds: (clock() - start) / 1000, ready: true };
    if (clock() - start >= (o.timeoutMs ?? 120_000))
      return { node: nodeName, deleted: old, ...(replacement ? { replacement } : {}), ready: false };
    await sleep(o.pollMs ?? 2_000);
  }
}

/** The VPC CNI setting that lets the VPC resource controller assign IPs to Windows pods. */
export const WINDOWS_IPAM_KEY = 'enable-windows-ipam';

export interface ConfigMapChange {
  readonly key: string;
  /** The value before (null: the key was absent). */
  readonly before: string | null;
  readonly after: string | null;
  readonly changed: boolean;
}

/**
 * Sets `enable-windows-ipam: "true"` in ConfigMap kube-system/amazon-vpc-cni, as the EKS guide for
 * Windows nodes does (`kubectl patch configmap/amazon-vpc-cni … --type merge`), refusing to write
 * over a change made since it was read (resourceVersion precondition).
 * https://docs.aws.amazon.com/eks/latest/userguide/windows-support.html
 */
export async function enableWindowsIpam(w: ClusterWrites): Promise<ConfigMapChange> {
  const cm = await w.api.vpcCniConfigMapObject();
  if (!cm) throw new VpcCniConfigMapMissingError('ConfigMap kube-system/amazon-vpc-cni does not exist');
  const before = cm.data[WINDOWS_IPAM_KEY] ?? null;
  if (before === 'true') return { key: WINDOWS_IPAM_KEY, before, after: before, changed: false };
  const data = await w.patchVpcCniConfigMap({ [WINDOWS_IPAM_KEY]: 'true' }, cm.resourceVersion);
  return { key: WINDOWS_IPAM_KEY, before, after: data[WINDOWS_IPAM_KEY] ?? null, changed: true };
}

/** Restores `enable-windows-ipam` to its value before {@link enableWindowsIpam} (removes it when it was absent). */
export async function restoreWindowsIpam(
  w: ClusterWrites,
  change: Pick<ConfigMapChange, 'before'>,
): Promise<ConfigMapChange> {
  const cm = await w.api.vpcCniConfigMapObject();
  if (!cm) throw new VpcCniConfigMapMissingError('ConfigMap kube-system/amazon-vpc-cni does not exist');
  const now = cm.data[WINDOWS_IPAM_KEY] ?? null;
  if (now === change.before) return { key: WINDOWS_IPAM_KEY, before: now, after: now, changed: false };
  const data = await w.patchVpcCniConfigMap({ [WINDOWS_IPAM_KEY]: change.before }, cm.resourceVersion);
  return { key: WINDOWS_IPAM_KEY, before: now, after: data[WINDOWS_IPAM_KEY] ?? null, changed: true };
}
