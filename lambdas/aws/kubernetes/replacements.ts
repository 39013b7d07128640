import { isRunningAndReady, type PodObject } from '../../core/detect/stuck-pods.js';
import type { EvictedPod } from '../../core/door/evict-after-repair.js';
import { CoreV1Api } from '../readers/kubernetes/client.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';

/** The pod a controller created in place of an evicted one, and when it ran. */
export interface Replacement {
  /** The evicted pod (namespace/name). */
  readonly evicted: string;
  /** The controller's new pod (namespace/name), or undefined when none appeared. */
  readonly pod?: string;
  readonly node?: string;
  /** Seconds (to a tenth) from the eviction until the new pod was seen Running and Ready. */
  readonly runningAfterSeconds?: number;
}

export interface ReplacementVerdict {
  readonly replacements: readonly Replacement[];
  /** Every evicted pod has a new pod that runs and is ready. */
  readonly verified: boolean;
  readonly windowSeconds: number;
}

export interface ReplacementWatch {
  /** When the evictions started (ISO): a controller's pods created since are its replacements. */
  readonly since: string;
  readonly windowSeconds: number;
  /** Interval between reads. @default 2000 */
  readonly pollMs?: number;
  readonly clock?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Pods of one namespace (the replacement may be scheduled on any node). */
async function podsIn(api: ClusterApi, namespace: string): Promise<PodObject[]> {
  return api.listAll<PodObject>('list pods in namespace', (kc, cont) =>
    kc.makeApiClient(CoreV1Api).listPodForAllNamespaces({
      fieldSelector: `metadata.namespace=${namespace}`,
      limit: 500,
      ...(cont ? { _continue: cont } : {}),
    }),
  );
}

/** Created by the evicted pod's controller (owner uid) at or after the eviction, and not the evicted pod. */
function isReplacementOf(pod: PodObject, e: EvictedPod, sinceSecond: number): boolean {
  const owner = pod.metadata?.ownerReferences?.find((o) => o.controller);
  const created = Date.parse(String(pod.metadata?.creationTimestamp ?? ''));
  return owner?.uid === e.owner.uid && pod.metadata?.uid !== e.uid && created >= sinceSecond;
}

/**
 * After evicting stuck pods: waits until each evicted pod's controller has a new pod (created since
 * the eviction, matched by the controller's uid, never by name or text) that runs and is ready, or
 * the window closes. Reads the pods' namespaces every `pollMs`. The API gives creation times to the
 * second, so a pod the controller created in the same second just before the eviction would count.
 */
export async function verifyReplacements(
  api: ClusterApi,
  evicted: readonly EvictedPod[],
  w: ReplacementWatch,
): Promise<ReplacementVerdict> {
  const clock = w.clock ?? (() => new Date());
  const sleep = w.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const since = Date.parse(w.since);
  const sinceSecond = Math.floor(since / 1000) * 1000;
  const found = new Map<string, Replacement>();
  const claimed = new Set<string>();
  for (;;) {
    for (const ns of new Set(evicted.map((e) => e.namespace))) {
      const pods = await podsIn(api, ns);
      for (const e of evicted.filter((x) => x.namespace === ns && found.get(key(x))?.runningAfterSeconds === undefined))
        observe(e, pods, { found, claimed, sinceSecond, at: Math.round((clock().getTime() - since) / 100) / 10 });
    }
    const done = evicted.every((e) => found.get(key(e))?.runningAfterSeconds !== undefined);
    if (done || clock().getTime() - since >= w.windowSeconds * 1000) break;
    await sleep(w.pollMs ?? 2_000);
  }
  const replacements = evicted.map((e) => found.get(key(e)) ?? { evicted: key(e) });
  return {
    replacements,
    verified: replacements.length > 0 && replacements.every((r) => r.runningAfterSeconds !== undefined),
    windowSeconds: w.windowSeconds,
  };
}

const key = (p: { namespace: string; name: string }) => `${p.namespace}/${p.name}`;

/** Records the evicted pod's replacement as seen now (a pod claimed by one evicted pod is not another's). */
function observe(
  e: EvictedPod,
  pods: readonly PodObject[],
  s: { found: Map<string, Replacement>; claimed: Set<string>; sinceSecond: number; at: number },
): void {
  const mine = s.found.get(key(e))?.pod;
  const pod =
    pods.find((p) => `${p.metadata?.namespace}/${p.metadata?.name}` === mine && isReplacementOf(p, e, s.sinceSecond)) ??
    pods.find((p) => !s.claimed.has(p.metadata?.uid ?? '') && isReplacementOf(p, e, s.sinceSecond));
  if (!pod) return;
  s.claimed.add(pod.metadata?.uid ?? '');
  s.found.set(key(e), {
    evicted: key(e),
    pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`,
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    ...(isRunningAndReady(pod) && !pod.metadata?.deletionTimestamp ? { runningAfterSeconds: Math.max(0, s.at) } : {}),
  });
}
