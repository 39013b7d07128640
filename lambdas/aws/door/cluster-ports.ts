import { asStuckPod } from '../../core/detect/stuck-pods.js';
import type { AwsNodeRestartPort, WindowsIpamPort } from '../../core/remedy/kubernetes-paths.js';
import { awsNodeOn } from '../readers/kubernetes/aws-node.js';
import type { ClusterWrites } from './cluster-writes.js';
import { enableWindowsIpam, restartAwsNode, restoreWindowsIpam, type WaitOptions } from './kubernetes-actions.js';

/** The cluster side of restart-aws-node: aws-node's own pod (the evidence), the node's stuck pods (reported), the restart. */
export function awsNodeRestartPort(w: ClusterWrites, wait: WaitOptions = {}): AwsNodeRestartPort {
  return {
    awsNode: (nodeName) => awsNodeOn(w.api, nodeName),
    async stuckPods(nodeName) {
      return (await w.api.podsOnNode(nodeName))
        .map(asStuckPod)
        .filter((p) => p !== undefined && p.nodeName === nodeName)
        .map((p) => `${p?.namespace}/${p?.name}`);
    },
    async restart(nodeName) {
      const r = await restartAwsNode(w, nodeName, wait);
      return {
        deleted: r.deleted,
        ...(r.readyAfterSeconds !== undefined ? { readyAfterSeconds: r.readyAfterSeconds } : {}),
      };
    },
  };
}

/** The cluster side of enable-windows-ipam: the ConfigMap's key and the cluster's Windows nodes. */
export function windowsIpamPort(w: ClusterWrites): WindowsIpamPort {
  return {
    async read() {
      const [cm, windowsNodes] = await Promise.all([w.api.vpcCniConfigMapObject(), w.api.windowsNodeCount()]);
      return { exists: cm !== undefined, value: cm?.data['enable-windows-ipam'] ?? null, windowsNodes };
    },
    enable: () => enableWindowsIpam(w),
    async restore(before) {
      await restoreWindowsIpam(w, { before });
    },
  };
}
