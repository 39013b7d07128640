import type { AwsNodeRestartPort, WindowsIpamPort } from '../../core/remedy/kubernetes-paths.js';
import { asStuckPod } from '../../core/stuck-pods.js';
import { awsNodeOn, enableWindowsIpam, restartAwsNode, restoreWindowsIpam, type WaitOptions } from './actions.js';
import type { ClusterApi } from './cluster-api.js';

/** The cluster side of restart-aws-node. */
export function awsNodeRestartPort(api: ClusterApi, wait: WaitOptions = {}): AwsNodeRestartPort {
  return {
    awsNode: (nodeName) => awsNodeOn(api, nodeName),
    async stuckPods(nodeName) {
      return (await api.podsOnNode(nodeName))
        .map(asStuckPod)
        .filter((p) => p !== undefined && p.nodeName === nodeName)
        .map((p) => `${p?.namespace}/${p?.name}`);
    },
    async restart(nodeName) {
      const r = await restartAwsNode(api, nodeName, wait);
      return {
        deleted: r.deleted,
        ...(r.readyAfterSeconds !== undefined ? { readyAfterSeconds: r.readyAfterSeconds } : {}),
      };
    },
  };
}

/** The cluster side of enable-windows-ipam. */
export function windowsIpamPort(api: ClusterApi): WindowsIpamPort {
  return {
    async read() {
      const cm = await api.vpcCniConfigMapObject();
      return { exists: cm !== undefined, value: cm?.data['enable-windows-ipam'] ?? null };
    },
    enable: () => enableWindowsIpam(api),
    async restore(before) {
      await restoreWindowsIpam(api, { before });
    },
  };
}
