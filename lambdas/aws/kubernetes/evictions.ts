import { drainSelection, evictableStuckPods, type PodSelection, podKey } from '../../core/kubernetes-actions.js';
import { asStuckPod, type PodObject } from '../../core/stuck-pods.js';
import { type CordonRecord, cordonNode } from './actions.js';
import { type ClusterApi, PodDisruptionBudgetError } from './cluster-api.js';

/** What happened to each pod an eviction run touched. */
export interface EvictionReport {
  readonly evicted: readonly string[];
  /** Gone before its eviction (already deleted or replaced). */
  readonly gone: readonly string[];
  /** Refused by a PodDisruptionBudget (429): reported, never forced. */
  readonly blocked: readonly { readonly pod: string; readonly budget: string }[];
  readonly failed: readonly { readonly pod: string; readonly error: string }[];
  readonly skipped: PodSelection['skipped'];
}

async function evictAll(api: ClusterApi, selection: PodSelection): Promise<EvictionReport> {
  const evicted: string[] = [];
  const gone: string[] = [];
  const blocked: { pod: string; budget: string }[] = [];
  const failed: { pod: string; error: string }[] = [];
  for (const pod of selection.evict) {
    const key = podKey(pod);
    try {
      const done = await api.evictPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
      (done ? evicted : gone).push(key);
    } catch (e) {
      if (e instanceof PodDisruptionBudgetError) blocked.push({ pod: key, budget: e.message });
      else failed.push({ pod: key, error: `${(e as Error).name}: ${(e as Error).message}` });
    }
  }
  return { evicted, gone, blocked, failed, skipped: selection.skipped };
}

/**
 * After a repair: evicts the node's stuck pods that a controller (ReplicaSet, StatefulSet,
 * DaemonSet, Job) will re-create, so they start over on the repaired node. `only` narrows to pods
 * the workflow named (from its inspection); pods no controller owns are left alone.
 */
export async function evictStuckPods(
  api: ClusterApi,
  nodeName: string,
  only?: readonly { readonly namespace: string; readonly name: string }[],
): Promise<EvictionReport> {
  const wanted = only ? new Set(only.map((p) => `${p.namespace}/${p.name}`)) : undefined;
  const stuck = (await api.podsOnNode(nodeName)).filter(
    (p: PodObject) => p.spec?.nodeName === nodeName && asStuckPod(p) && (!wanted || wanted.has(podKey(p))),
  );
  return evictAll(api, evictableStuckPods(stuck));
}

export interface DrainReport extends EvictionReport {
  readonly cordon: CordonRecord;
  /** Pods no controller would re-create: a drain without force leaves them and says so. */
  readonly unmanaged: readonly string[];
  /** Every pod that had to leave was evicted. */
  readonly complete: boolean;
}

/**
 * Drains a node for replacement: cordons it, then evicts its pods through the Eviction API so
 * PodDisruptionBudgets are honoured. DaemonSet and mirror pods stay; a budget's refusal (429) and
 * unmanaged pods are reported, never forced. The node stays cordoned for its replacement.
 */
export async function drainNode(api: ClusterApi, nodeName: string): Promise<DrainReport> {
  const cordon = await cordonNode(api, nodeName);
  const pods = (await api.podsOnNode(nodeName)).filter((p) => p.spec?.nodeName === nodeName);
  const selection = drainSelection(pods);
  const report = await evictAll(api, selection);
  return {
    ...report,
    cordon,
    unmanaged: selection.unmanaged,
    complete: report.blocked.length === 0 && report.failed.length === 0 && selection.unmanaged.length === 0,
  };
}
