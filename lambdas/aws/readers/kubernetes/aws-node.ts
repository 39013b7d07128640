import { isRunningAndReady, type PodObject } from '../../../core/detect/stuck-pods.js';
import { controllerOf } from '../../../core/door/kubernetes-actions.js';
import type { ClusterApi } from './cluster-api.js';

/** aws-node on one node as the API server keeps it: its own pod and status (never text, never another pod). */
export interface AwsNodeState {
  readonly pod: string;
  readonly uid: string;
  readonly ready: boolean;
  readonly restarts: number;
}

/** The aws-node pod of DaemonSet kube-system/aws-node on the node, or undefined. */
export async function awsNodeOn(api: ClusterApi, nodeName: string): Promise<AwsNodeState | undefined> {
  const pods = (await api.awsNodePods(nodeName)).filter(
    (p) =>
      p.spec?.nodeName === nodeName &&
      controllerOf(p) === 'DaemonSet' &&
      p.metadata?.ownerReferences?.some((o) => o.controller && o.name === 'aws-node'),
  );
  const pod = pods.find((p) => !p.metadata?.deletionTimestamp) ?? pods[0];
  return pod?.metadata?.name && pod.metadata.uid ? awsNodeState(pod) : undefined;
}

function awsNodeState(pod: PodObject): AwsNodeState {
  const main = pod.status?.containerStatuses?.find((c) => c.name === 'aws-node');
  return {
    pod: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    ready: isRunningAndReady(pod),
    restarts: main?.restartCount ?? 0,
  };
}
