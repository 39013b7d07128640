import { asStuckPod, type PodObject } from '../../core/detect/stuck-pods.js';
import type { EvictedPod } from '../../core/door/evict-after-repair.js';
import { drainSelection, evictableStuckPods, type PodSelection, podKey } from '../../core/door/kubernetes-actions.js';
import { type ClusterApi, PodDisruptionBudgetError } from '../readers/kubernetes/cluster-api.js';
import type { ClusterWrites } from './cluster-writes.js';
import { type CordonRecord, cordonNode, type WaitOptions } from './kubernetes-actions.js';

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

async function evictAll(w: ClusterWrites, selection: PodSelection, dryRun = false): Promise<EvictionReport> {
  const evicted: string[] = [];
  const gone: string[] = [];
  const blocked: { pod: string; budget: string }[] = [];
  const failed: { pod: string; error: string }[] = [];
  for (const pod of selection.evict) {
    const key = podKey(pod);
    try {
      const done = await w.evictPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
        dryRun,
        uid: pod.metadata?.uid,
      });
      (done ? evicted : gone).push(key);
    } catch (e) {
      if (e instanceof PodDisruptionBudgetError) blocked.push({ pod: key, budget: e.message });
      else failed.push({ pod: key, error: `${(e as Error).name}: ${(e as Error).message}` });
    }
  }
  return { evicted, gone, blocked, failed, skipped: selection.skipped };
}

export type { EvictedPod };

/** What {@link evictStuckPods} did, with what the watch for the re-created pods needs. */
export interface StuckPodEvictions extends EvictionReport {
  /** The evicted pods with their controllers (empty on a dry run). */
  readonly evictedPods: readonly EvictedPod[];
  /** When the evictions started (ISO): pods a controller created since are its replacements. */
  readonly startedAt: string;
  /** The API server's dry run: `evicted` names the pods it would evict; nothing changed. */
  readonly dryRun: boolean;
}

function evictedPod(pod: PodObject): EvictedPod {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    owner: { kind: owner?.kind ?? '', name: owner?.name ?? '', uid: owner?.uid ?? '' },
  };
}

/**
 * After a repair: evicts the node's stuck pods that a controller (ReplicaSet, StatefulSet,
 * DaemonSet, Job) will re-create, so they start over on the repaired node. The pods come from the
 * API's own listing of the node's pods; `only` narrows to pods the workflow's inspection named.
 * Pods no controller owns are left alone (reported as skipped). Through the Eviction API:
 * PodDisruptionBudgets are honoured, a refusal (429) is reported, never forced.
 */
export async function evictStuckPods(
  w: ClusterWrites,
  nodeName: string,
  only?: readonly { readonly namespace: string; readonly name: string }[],
  o: { readonly dryRun?: boolean; readonly clock?: () => Date } = {},
): Promise<StuckPodEvictions> {
  const startedAt = (o.clock ?? (() => new Date()))().toISOString();
  const wanted = only ? new Set(only.map((p) => `${p.namespace}/${p.name}`)) : undefined;
  const stuck = (await w.api.podsOnNode(nodeName)).filter(
    (p: PodObject) => p.spec?.nodeName === nodeName && asStuckPod(p) && (!wanted || wanted.has(podKey(p))),
  );
  const selection = evictableStuckPods(stuck);
  const report = await evictAll(w, selection, o.dryRun === true);
  const evicted = new Set(o.dryRun ? [] : report.evicted);
  return {
    ...report,
    evictedPods: selection.evict.filter((p) => evicted.has(podKey(p))).map(evictedPod),
    startedAt,
    dryRun: o.dryRun === true,
  };
}

export interface DrainReport extends EvictionReport {
  readonly cordon: CordonRecord;
  /** Pods no controller would re-create: a drain without force leaves them and says so. */
  readonly unmanaged: readonly string[];
  /** Evicted pods that left the node (terminated) while the drain waited. */
  readonly terminated: readonly string[];
  /** Evicted pods still on the node (terminating) when the wait ended. */
  readonly terminating: readonly string[];
  /** How long the drain waited for the evicted pods to leave. */
  readonly waitedSeconds: number;
  /** The node was cordoned before: someone else (node auto repair, an operator) drains it; nothing evicted. */
  readonly leftToOthers: boolean;
  /** Every pod that had to leave was evicted and is gone from the node. */
  readonly complete: boolean;
}

export interface DrainOptions extends WaitOptions {
  /** Leave a node that was already cordoned to whoever cordoned it (no double action). @default false */
  readonly skipIfCordoned?: boolean;
}

/**
 * Drains a node for replacement: cordons it, then evicts its pods through the Eviction API so
 * PodDisruptionBudgets are honoured, and waits until the evicted pods have left the node (their
 * grace period) or the timeout passes. DaemonSet and mirror pods stay; a budget's refusal (429) and
 * unmanaged pods are reported, never forced. The node stays cordoned for its replacement.
 */
export async function drainNode(w: ClusterWrites, nodeName: string, o: DrainOptions = {}): Promise<DrainReport> {
  const { api } = w;
  const cordon = await cordonNode(w, nodeName);
  const none = { terminated: [], terminating: [], waitedSeconds: 0 };
  if (cordon.before && o.skipIfCordoned)
    return {
      evicted: [],
      gone: [],
      blocked: [],
      failed: [],
      skipped: [],
      unmanaged: [],
      cordon,
      ...none,
      leftToOthers: true,
      complete: false,
    };
  const pods = (await api.podsOnNode(nodeName)).filter((p) => p.spec?.nodeName === nodeName);
  const selection = drainSelection(pods);
  const report = await evictAll(w, selection);
  const uids = new Map(selection.evict.map((p) => [podKey(p), p.metadata?.uid]));
  const left = report.evicted.length ? await waitForLeaving(api, nodeName, report.evicted, uids, o) : none;
  return {
    ...report,
    cordon,
    unmanaged: selection.unmanaged,
    ...left,
    leftToOthers: false,
    complete:
      report.blocked.length === 0 &&
      report.failed.length === 0 &&
      selection.unmanaged.length === 0 &&
      left.terminating.length === 0,
  };
}

/** Waits until the evicted pods (same uid) are no longer on the node, or the timeout passes. */
async function waitForLeaving(
  api: ClusterApi,
  nodeName: string,
  evicted: readonly string[],
  uids: ReadonlyMap<string, string | undefined>,
  o: WaitOptions,
): Promise<{ terminated: string[]; terminating: string[]; waitedSeconds: number }> {
  const clock = o.clock ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = clock();
  for (;;) {
    const present = new Set(
      (await api.podsOnNode(nodeName))
        .filter((p) => p.spec?.nodeName === nodeName && uids.get(podKey(p)) === p.metadata?.uid)
        .map(podKey),
    );
    const terminating = evicted.filter((k) => present.has(k));
    const waited = clock() - start;
    if (terminating.length === 0 || waited >= (o.timeoutMs ?? 120_000))
      return {
        terminated: evicted.filter((k) => !present.has(k)),
        terminating,
        waitedSeconds: Math.round(waited / 1000),
      };
    await sleep(o.pollMs ?? 2_000);
  }
}
