import type { CauseVerdict } from '../policy/cause-evidence.js';
import { awsNodeCause, windowsIpamCause } from '../policy/cause-evidence.js';
import type { ApplyPath, Check } from './apply-path.js';

/**
 * Cluster remedies under the apply-path discipline (re-check, smallest change, dry-run diff,
 * verify, roll back), run by the Kubernetes function through the cluster's API. The node is the
 * one the workflow resolved from EC2; the pods are found by DaemonSet ownership on that node.
 */

/** Restart aws-node on one node: ipamd unreachable, or the CNI's permissions just repaired. */
export interface AwsNodeRestartTarget {
  readonly kind: 'restart-aws-node';
  /** The node's Kubernetes name (EC2 private DNS name), never text from a log line. */
  readonly nodeName: string;
}

/** Set `enable-windows-ipam: "true"` in ConfigMap kube-system/amazon-vpc-cni. */
export interface WindowsIpamTarget {
  readonly kind: 'enable-windows-ipam';
}

export type KubernetesRemedyTarget = AwsNodeRestartTarget | WindowsIpamTarget;

export interface AwsNodeView {
  readonly pod: string;
  readonly uid: string;
  readonly ready: boolean;
  readonly restarts: number;
}

export interface AwsNodeRestartPort {
  /** The aws-node DaemonSet's pod on the node. */
  awsNode(nodeName: string): Promise<AwsNodeView | undefined>;
  /** Pods stuck on the node (ContainerCreating / ErrImagePull / ImagePullBackOff). */
  stuckPods(nodeName: string): Promise<readonly string[]>;
  /** Deletes the pod (uid precondition) and waits for the replacement to be Ready. */
  restart(nodeName: string): Promise<{ readonly deleted: AwsNodeView; readonly readyAfterSeconds?: number }>;
}

export interface AwsNodeRestartState {
  readonly awsNode?: AwsNodeView;
  readonly stuck: readonly string[];
}

/** A restart cannot be undone: the DaemonSet controller owns the replacement. */
export class IrreversibleActionError extends Error {
  override readonly name = 'IrreversibleActionError';
}

/** A cause verdict as an apply path's re-check. */
function asCheck(v: CauseVerdict): Check {
  return v.status === 'holds'
    ? { ok: true, reason: v.reason }
    : { ok: false, reason: v.reason, ...(v.status === 'cannot' ? { cannot: true } : {}) };
}

/**
 * What proves that aws-node needs a restart besides its own pod: the class, and whether the door
 * attached AmazonEKS_CNI_Policy to the role aws-node uses in this incident (and verified it).
 */
export interface AwsNodeRestartContext {
  readonly failureClass: string;
  readonly cniPolicyAttached: boolean;
}

export function awsNodeRestartPath(
  t: AwsNodeRestartTarget,
  port: AwsNodeRestartPort,
  context: AwsNodeRestartContext,
): ApplyPath<AwsNodeRestartState> {
  let deleted: AwsNodeView | undefined;
  let readyAfterSeconds: number | undefined;
  return {
    id: 'restart-aws-node',
    change: `restart aws-node on node ${t.nodeName} (delete the pod of DaemonSet kube-system/aws-node there)`,
    async read() {
      const [awsNode, stuck] = await Promise.all([port.awsNode(t.nodeName), port.stuckPods(t.nodeName)]);
      return { ...(awsNode ? { awsNode } : {}), stuck: [...stuck].sort() };
    },
    // aws-node's own pod is the evidence; the node's stuck pods are reported, never the proof.
    causeHolds: (s): Check => asCheck(awsNodeCause(t.nodeName, s.awsNode, context)),
    planned: (s) => ({
      awsNode: { pod: 'a new pod of DaemonSet aws-node', uid: 'new', ready: true, restarts: 0 },
      stuck: s.stuck,
    }),
    render: (s) => [
      s.awsNode
        ? `aws-node on ${t.nodeName}: ${s.awsNode.pod} ${s.awsNode.ready ? 'Ready' : 'not Ready'}, ${s.awsNode.restarts} restarts`
        : `aws-node on ${t.nodeName}: no pod`,
      `stuck pods on ${t.nodeName}: ${s.stuck.length ? s.stuck.join(', ') : 'none'}`,
    ],
    async apply() {
      const r = await port.restart(t.nodeName);
      deleted = r.deleted;
      readyAfterSeconds = r.readyAfterSeconds;
      return { nodeName: t.nodeName, deletedPod: r.deleted.pod, deletedUid: r.deleted.uid };
    },
    async verify(s) {
      const now = s.awsNode;
      if (!now || now.uid === deleted?.uid) return { ok: false, reason: `aws-node on ${t.nodeName} was not replaced` };
      if (!now.ready) return { ok: false, reason: `aws-node ${now.pod} on ${t.nodeName} is not Ready` };
      return {
        ok: true,
        reason: `aws-node ${now.pod} replaced ${deleted?.pod} on ${t.nodeName} and is Ready${readyAfterSeconds !== undefined ? ` after ${Math.round(readyAfterSeconds)} s` : ''}`,
        evidence: { stuckPods: s.stuck, ...(readyAfterSeconds !== undefined ? { readyAfterSeconds } : {}) },
      };
    },
    async rollback() {
      throw new IrreversibleActionError(
        `a restart cannot be undone: the DaemonSet controller owns aws-node on ${t.nodeName}; look at its logs (kubectl logs -n kube-system -l k8s-app=aws-node)`,
      );
    },
  };
}

/** The VPC CNI ConfigMap's `enable-windows-ipam` (null: the key is absent), and the cluster's Windows nodes. */
export interface WindowsIpamState {
  readonly exists: boolean;
  readonly value: string | null;
  readonly windowsNodes: number;
}

export interface WindowsIpamPort {
  read(): Promise<WindowsIpamState>;
  /** Sets the key to "true"; returns the value before. */
  enable(): Promise<{ readonly before: string | null }>;
  /** Puts the value before back (null removes the key). */
  restore(before: string | null): Promise<void>;
}

const ABSENT = '(absent)';

export function windowsIpamPath(port: WindowsIpamPort): ApplyPath<WindowsIpamState> {
  return {
    id: 'enable-windows-ipam',
    change: 'set enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni',
    read: () => port.read(),
    causeHolds: (s): Check =>
      asCheck(windowsIpamCause({ configMapExists: s.exists, value: s.value, windowsNodes: s.windowsNodes })),
    planned: (s) => ({ ...s, value: 'true' }),
    render: (s) => [
      s.exists
        ? `ConfigMap kube-system/amazon-vpc-cni enable-windows-ipam: ${s.value ?? ABSENT}`
        : 'ConfigMap kube-system/amazon-vpc-cni: absent',
    ],
    async apply() {
      const { before } = await port.enable();
      return { before: before ?? ABSENT };
    },
    async verify(s) {
      return s.value === 'true'
        ? { ok: true, reason: 'enable-windows-ipam reads "true": new Windows pods get their IP label' }
        : { ok: false, reason: `enable-windows-ipam reads ${s.value ?? ABSENT} after the patch` };
    },
    async rollback(applied) {
      await port.restore(applied.before === undefined || applied.before === ABSENT ? null : applied.before);
    },
  };
}

/**
 * The cluster remedy for an incident's class, or why there is none. For `cni-permissions` it
 * follows the account remedy (AmazonEKS_CNI_Policy attached): aws-node is restarted so ipamd
 * starts over with the permissions it lacked.
 */
export function kubernetesRemedyTarget(i: {
  readonly class: string;
  /** The node's Kubernetes name as the workflow resolved it from EC2. */
  readonly nodeName?: string;
}): { readonly target?: KubernetesRemedyTarget; readonly reason: string } {
  if (i.class === 'windows-ipam') return { target: { kind: 'enable-windows-ipam' }, reason: 'Windows IPAM is off' };
  if (i.class !== 'ipamd-unavailable' && i.class !== 'cni-permissions')
    return { reason: `no cluster remedy for ${i.class}` };
  if (!i.nodeName) return { reason: 'the node is not resolved: aws-node is restarted only on a known node' };
  return {
    target: { kind: 'restart-aws-node', nodeName: i.nodeName },
    reason:
      i.class === 'cni-permissions'
        ? 'aws-node restarts after the CNI policy is attached'
        : 'ipamd does not answer on the node: aws-node restarts',
  };
}
