import type { V1Deployment, V1PodTemplateSpec, V1ReplicaSet } from '@kubernetes/client-node';
import type { PodObject } from '../../../core/detect/stuck-pods.js';
import {
  type DeploymentView,
  type PullInputs,
  type ReplicaSetView,
  type RolloutFacts,
  revisionOf,
  type StuckRolloutPod,
} from '../../../core/remedy/rollout.js';
import { statusOf } from './api-errors.js';
import { AppsV1Api, CoreV1Api } from './client.js';
import { type ClusterApi, selectorValue } from './cluster-api.js';

/**
 * A pull failure's owner chain read through the Kubernetes API (pod → ReplicaSet → Deployment by
 * `ownerReferences`, the Deployment's ReplicaSets by the owner's uid), for lambdas/core/rollout.ts.
 * Reads only (the `pod-doctor` group's RBAC: get/list replicasets and deployments); the door's
 * rollback uses the same reads (lambdas/aws/door/rollout-port.ts) right before it writes.
 */

const iso = (t: string | Date | undefined) => (t instanceof Date ? t.toISOString() : (t ?? ''));
/** A label key or value as a selector takes it (anything else and the selector is not used). */
const LABEL = /^([a-z0-9.-]{1,253}\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$|^$/;

/** What a pod template pulls. */
export function pullInputsOf(t: V1PodTemplateSpec | undefined): PullInputs {
  const spec = t?.spec;
  return {
    images: [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map((c) => c.image ?? '').filter(Boolean),
    imagePullSecrets: (spec?.imagePullSecrets ?? []).map((s) => s.name ?? '').filter(Boolean),
    ...(spec?.serviceAccountName ? { serviceAccount: spec.serviceAccountName } : {}),
  };
}

export function replicaSetView(rs: V1ReplicaSet): ReplicaSetView {
  const owner = rs.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'Deployment');
  const revision = revisionOf(rs.metadata?.annotations);
  return {
    name: rs.metadata?.name ?? '',
    uid: rs.metadata?.uid ?? '',
    ...(revision !== undefined ? { revision } : {}),
    createdAt: iso(rs.metadata?.creationTimestamp),
    ...(owner ? { deployment: { name: owner.name, uid: owner.uid } } : {}),
    replicas: rs.status?.replicas ?? 0,
    readyReplicas: rs.status?.readyReplicas ?? 0,
    ...pullInputsOf(rs.spec?.template),
  };
}

export function deploymentView(d: V1Deployment): DeploymentView {
  return {
    namespace: d.metadata?.namespace ?? '',
    name: d.metadata?.name ?? '',
    uid: d.metadata?.uid ?? '',
    ...(d.metadata?.resourceVersion ? { resourceVersion: d.metadata.resourceVersion } : {}),
    labels: { ...(d.metadata?.labels ?? {}) },
    annotations: { ...(d.metadata?.annotations ?? {}) },
    replicas: d.spec?.replicas ?? 1,
    paused: d.spec?.paused === true,
    ...pullInputsOf(d.spec?.template),
  };
}

/** The Deployment's selector as a label selector (matchLabels only; undefined when it cannot be one). */
function labelSelector(d: V1Deployment): string | undefined {
  const labels = Object.entries(d.spec?.selector?.matchLabels ?? {});
  if (labels.length === 0 || d.spec?.selector?.matchExpressions?.length) return undefined;
  if (!labels.every(([k, v]) => LABEL.test(k) && LABEL.test(v))) return undefined;
  return labels.map(([k, v]) => `${k}=${v}`).join(',');
}

async function orAbsent<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (statusOf(e) === 404) return undefined;
    throw e;
  }
}

export function deployment(api: ClusterApi, namespace: string, name: string): Promise<V1Deployment | undefined> {
  return orAbsent(() =>
    api.call('read deployment', (kc) =>
      kc.makeApiClient(AppsV1Api).readNamespacedDeployment({
        namespace: selectorValue(namespace, 'namespace'),
        name: selectorValue(name, 'deployment name'),
      }),
    ),
  );
}

/** The ReplicaSets the Deployment controls (by its uid in their ownerReferences). */
export async function replicaSetsOf(api: ClusterApi, d: V1Deployment): Promise<V1ReplicaSet[]> {
  const namespace = selectorValue(d.metadata?.namespace ?? '', 'namespace');
  const selector = labelSelector(d);
  const all = await api.listAll<V1ReplicaSet>('list replicasets', (kc, cont) =>
    kc.makeApiClient(AppsV1Api).listNamespacedReplicaSet({
      namespace,
      ...(selector ? { labelSelector: selector } : {}),
      limit: 250,
      ...(cont ? { _continue: cont } : {}),
    }),
  );
  return all.filter((rs) => rs.metadata?.ownerReferences?.some((o) => o.controller && o.uid === d.metadata?.uid));
}

/** The Deployment's pods that do not run (Pending), with their ReplicaSet and the kubelet's waiting reasons. */
async function stuckPodsOf(
  api: ClusterApi,
  d: V1Deployment,
  sets: readonly V1ReplicaSet[],
): Promise<StuckRolloutPod[]> {
  const namespace = selectorValue(d.metadata?.namespace ?? '', 'namespace');
  const selector = labelSelector(d);
  const pods = await api.listAll<PodObject>('list pods', (kc, cont) =>
    kc.makeApiClient(CoreV1Api).listNamespacedPod({
      namespace,
      fieldSelector: 'status.phase=Pending',
      ...(selector ? { labelSelector: selector } : {}),
      limit: 250,
      ...(cont ? { _continue: cont } : {}),
    }),
  );
  const uids = new Map(sets.map((rs) => [rs.metadata?.uid, rs.metadata?.name ?? '']));
  return pods.flatMap((p) => {
    const owner = p.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'ReplicaSet');
    const replicaSet = owner?.uid ? uids.get(owner.uid) : undefined;
    if (!replicaSet) return [];
    const statuses = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])];
    return [
      {
        name: p.metadata?.name ?? '',
        replicaSet,
        createdAt: iso(p.metadata?.creationTimestamp),
        waiting: statuses.map((s) => s.state?.waiting?.reason ?? '').filter(Boolean),
      },
    ];
  });
}

/** One Deployment's facts: the object, its ReplicaSets and its pods that do not start. */
export async function rolloutFacts(
  api: ClusterApi,
  namespace: string,
  name: string,
): Promise<{ readonly facts: RolloutFacts; readonly sets: readonly V1ReplicaSet[] } | undefined> {
  const d = await deployment(api, namespace, name);
  if (!d) return undefined;
  const sets = await replicaSetsOf(api, d);
  const stuck = await stuckPodsOf(api, d, sets);
  return { facts: { deployment: deploymentView(d), replicaSets: sets.map(replicaSetView), stuck }, sets };
}

/**
 * The Deployment that controls a pod, by the owner chain the API server keeps: the pod's
 * controlling ReplicaSet, whose controlling owner is a Deployment. Undefined for a pod of a
 * StatefulSet, DaemonSet, Job, a bare pod or a ReplicaSet without a Deployment.
 */
export async function deploymentOfPod(
  api: ClusterApi,
  pod: { readonly namespace: string; readonly name: string },
): Promise<{ readonly namespace: string; readonly name: string; readonly uid: string } | undefined> {
  const p = await api.pod(pod.namespace, pod.name);
  const rsRef = p?.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'ReplicaSet');
  if (!rsRef?.name) return undefined;
  const rs = await orAbsent(() =>
    api.call('read replicaset', (kc) =>
      kc.makeApiClient(AppsV1Api).readNamespacedReplicaSet({
        namespace: selectorValue(pod.namespace, 'namespace'),
        name: selectorValue(rsRef.name ?? '', 'replicaset name'),
      }),
    ),
  );
  if (!rs || rs.metadata?.uid !== rsRef.uid) return undefined;
  const dRef = rs.metadata?.ownerReferences?.find((o) => o.controller && o.kind === 'Deployment');
  return dRef?.name && dRef.uid ? { namespace: pod.namespace, name: dRef.name, uid: dRef.uid } : undefined;
}
