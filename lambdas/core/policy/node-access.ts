import type { NodeHostAccess } from '../detect/stuck-pods.js';

/**
 * What pod-doctor can and cannot do on a node, by how it reaches the node's host (issue 29, "Nodes
 * SSM cannot reach"). Said in every finding and summary about such a node, so a user knows which
 * part was done and which is left to them.
 *  - EKS Auto Mode: no SSM and no shell on the host; the EKS node monitoring agent is part of the
 *    node and answers a `NodeDiagnostic` (eks.amazonaws.com/v1alpha1, cluster-scoped, named after the
 *    node) by uploading a log bundle to a presigned PUT URL
 *    (https://docs.aws.amazon.com/eks/latest/userguide/auto-get-logs.html,
 *    https://github.com/aws/eks-node-monitoring-agent/blob/main/api/crds/eks.amazonaws.com_nodediagnostics.yaml);
 *  - Bottlerocket: Run Command runs in the control container, which does not see the host's
 *    containerd; the same `NodeDiagnostic` works when the node monitoring agent add-on runs there;
 *    by hand, the admin container (`apiclient exec admin sheltie`, then `logdog`).
 */
export interface NodeCapabilities {
  readonly access: NodeHostAccess;
  /** What pod-doctor does on such a node. */
  readonly can: readonly string[];
  /** What it cannot, and why. */
  readonly cannot: readonly string[];
  /** How the node's logs reach the evidence bucket: pod-doctor's SSM collection, or by hand. */
  readonly logs: 'ssm' | 'by-hand';
  /** The next step for a human on such a node. */
  readonly byHand?: string;
}

const API_ACTIONS = 'read its pods, events and Node object; cordon, drain and evict its stuck pods (approved)';

const CAPABILITIES: Readonly<Record<NodeHostAccess, NodeCapabilities>> = {
  ssm: {
    access: 'ssm',
    can: [
      'probe the node over SSM (runtime, sandbox image, disk, PIDs, registry reachability)',
      'repair the pause image in place and pin it',
      'collect a log bundle into the evidence bucket (SSM)',
      'restart the runtime (approved)',
      API_ACTIONS,
    ],
    cannot: [],
    logs: 'ssm',
  },
  'eks-auto-mode': {
    access: 'eks-auto-mode',
    can: [API_ACTIONS],
    cannot: [
      'probe the host or repair the pause image: EKS Auto Mode allows no SSM and no shell on its nodes',
      'restart kubelet or containerd on the node',
      'collect the node log bundle itself (no SSM)',
    ],
    logs: 'by-hand',
    byHand:
      'collect its logs with a NodeDiagnostic (docs.aws.amazon.com/eks/latest/userguide/auto-get-logs.html); let EKS Auto Mode replace the node (kubectl delete nodeclaim of the node, after cordon and drain); node auto repair replaces it when its conditions fail',
  },
  bottlerocket: {
    access: 'bottlerocket',
    can: [API_ACTIONS],
    cannot: [
      "probe the host or repair the pause image: Run Command runs in Bottlerocket's control container, which does not see the host's containerd",
      'restart kubelet or containerd on the node',
      "collect the node log bundle itself (the control container does not see the host's logs)",
    ],
    logs: 'by-hand',
    byHand:
      'inspect the host from the admin container (apiclient exec admin sheltie; logdog collects the logs), or replace the node',
  },
};

export function nodeCapabilities(access: NodeHostAccess): NodeCapabilities {
  return CAPABILITIES[access];
}

/** One line for a finding or summary: what was possible on the node, what was not. */
export function capabilitiesLine(c: NodeCapabilities): string {
  const cannot = c.cannot.length ? `; pod-doctor cannot ${c.cannot.join('; nor ')}` : '';
  return `pod-doctor can ${c.can.join('; ')}${cannot}`;
}
