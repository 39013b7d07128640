import type { NodeObject } from '../../core/detect/stuck-pods.js';
import { statusOf } from '../readers/kubernetes/api-errors.js';
import { PatchStrategy, setHeaderOptions } from '../readers/kubernetes/client.js';
import { type ClusterApi, selectorValue } from '../readers/kubernetes/cluster-api.js';
import { CoreV1WriteApi } from './kubernetes-writes.js';

/**
 * The writes the door makes through one cluster's API, with the reads' retry rules (ClusterApi.call):
 * a write that is not idempotent is sent again after a 5xx only when a read shows it did not take
 * effect.
 */
export class ClusterWrites {
  constructor(readonly api: ClusterApi) {}

  /** Cordon (`true`) or uncordon (`null` removes the field, as `kubectl uncordon` does). */
  async setUnschedulable(nodeName: string, unschedulable: true | null): Promise<NodeObject> {
    return this.api.call('patch node', (kc) =>
      kc
        .makeApiClient(CoreV1WriteApi)
        .patchNode(
          { name: selectorValue(nodeName, 'node name'), body: { spec: { unschedulable } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
    );
  }

  /** Deletes exactly the pod observed (precondition on its uid); false when it is already gone. */
  async deletePod(namespace: string, name: string, uid: string): Promise<boolean> {
    try {
      await this.api.call(`delete pod ${namespace}/${name}`, (kc) =>
        kc.makeApiClient(CoreV1WriteApi).deleteNamespacedPod({
          namespace: selectorValue(namespace, 'namespace'),
          name: selectorValue(name, 'pod name'),
          body: { preconditions: { uid } },
        }),
      );
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }

  /**
   * Evicts one pod through the Eviction API (policy/v1), which honours PodDisruptionBudgets: a
   * budget that allows no disruption throws PodDisruptionBudgetError. False when the pod is gone.
   * `dryRun`: the server's dry run (`dryRun=All`), which evicts nothing. An eviction creates an
   * object: after a 5xx it is sent again only when the pod (the one with `uid`, when given) is
   * still there and not terminating, i.e. the eviction did not take effect.
   */
  async evictPod(
    namespace: string,
    name: string,
    o: { readonly dryRun?: boolean; readonly uid?: string } = {},
  ): Promise<boolean> {
    const tookEffect = async () => {
      const now = await this.api.pod(namespace, name);
      const left = !now || (o.uid !== undefined && now.metadata?.uid !== o.uid) || !!now.metadata?.deletionTimestamp;
      return left ? 'took effect' : undefined;
    };
    try {
      await this.api.call<unknown>(
        `evict pod ${namespace}/${name}`,
        (kc) =>
          kc.makeApiClient(CoreV1WriteApi).createNamespacedPodEviction({
            namespace: selectorValue(namespace, 'namespace'),
            name: selectorValue(name, 'pod name'),
            body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
            // The API server runs every check (budgets included) and persists nothing.
            ...(o.dryRun ? { dryRun: 'All' } : {}),
          }),
        // A dry run persists nothing: sent again, it answers the same.
        o.dryRun ? undefined : tookEffect,
      );
      return true;
    } catch (e) {
      if (statusOf(e) === 404) return false;
      throw e;
    }
  }

  /**
   * Merge-patches keys of amazon-vpc-cni (`null` removes a key). With `resourceVersion` the API
   * server refuses (409) when the ConfigMap changed since it was read.
   */
  async patchVpcCniConfigMap(
    data: Record<string, string | null>,
    resourceVersion?: string,
  ): Promise<Record<string, string>> {
    // With a resourceVersion the patch is not idempotent: applied, then sent again, it answers 409.
    const tookEffect = async () => {
      const now = await this.api.vpcCniConfigMapObject();
      const applied = now && Object.entries(data).every(([k, v]) => (now.data[k] ?? null) === v);
      return applied ? { data: now.data } : undefined;
    };
    const cm = await this.api.call<{ data?: Record<string, string> }>(
      'patch configmap kube-system/amazon-vpc-cni',
      (kc) =>
        kc.makeApiClient(CoreV1WriteApi).patchNamespacedConfigMap(
          {
            namespace: 'kube-system',
            name: 'amazon-vpc-cni',
            body: { ...(resourceVersion ? { metadata: { resourceVersion } } : {}), data },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      resourceVersion ? tookEffect : undefined,
    );
    return cm.data ?? {};
  }
}
