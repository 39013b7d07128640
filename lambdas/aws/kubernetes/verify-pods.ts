import { isRunningAndReady, type PodObject } from '../../core/detect/stuck-pods.js';
import type { PodVerdict } from '../../core/workflow/execution-state.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';

/** A pod pod-doctor waits for after a repair. */
export interface WatchedPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
}

/** Pods that reached Running and Ready (seconds from the start of verification), still stuck, or gone meanwhile. */
export type { PodVerdict };

export interface VerifyOptions {
  /** How long to wait for the pods. */
  readonly windowSeconds: number;
  readonly clock?: () => Date;
}

const key = (p: { namespace?: string; name?: string }) => `${p.namespace}/${p.name}`;

/**
 * Waits until every watched pod runs and is ready, or the window closes: reads each pod once (it
 * may already run), then watches the node's pods with a server-side `timeoutSeconds` equal to
 * what is left of the window, and reads the remaining pods once more at the end (a watch may end
 * early: the API server closes watches after its own timeout). The verdict names every pod.
 */
export async function verifyPodsStarted(
  api: ClusterApi,
  nodeName: string,
  pods: readonly WatchedPod[],
  options: VerifyOptions,
): Promise<PodVerdict> {
  const clock = options.clock ?? (() => new Date());
  const start = clock().getTime();
  const elapsed = () => Math.round((clock().getTime() - start) / 1000);
  const started = new Map<string, number>();
  const gone = new Set<string>();
  const observe = (pod: PodObject | undefined, watched: WatchedPod) => {
    const k = key(watched);
    if (!pod || (watched.uid && pod.metadata?.uid && pod.metadata.uid !== watched.uid)) gone.add(k);
    else if (isRunningAndReady(pod) && !started.has(k)) started.set(k, elapsed());
  };
  const pending = () => pods.filter((p) => !started.has(key(p)) && !gone.has(key(p)));

  for (const p of pods) observe(await api.pod(p.namespace, p.name), p);
  const remaining = options.windowSeconds - elapsed();
  if (pending().length > 0 && remaining > 0) await watchNode(api, nodeName, pending(), remaining, observe);
  for (const p of pending()) observe(await api.pod(p.namespace, p.name), p);

  const stillStuck = pending().map(key);
  return {
    started: [...started.entries()].map(([pod, afterSeconds]) => ({ pod, afterSeconds })),
    stillStuck,
    gone: [...gone],
    verified: stillStuck.length === 0 && started.size > 0,
    windowSeconds: options.windowSeconds,
  };
}

/** One watch of the node's pods; resolves when all watched pods started or the watch ended. */
async function watchNode(
  api: ClusterApi,
  nodeName: string,
  pods: readonly WatchedPod[],
  seconds: number,
  observe: (pod: PodObject | undefined, watched: WatchedPod) => void,
): Promise<void> {
  const waiting = new Map(pods.map((p) => [key(p), p]));
  await api.call('watch pods', async (kc) => {
    await new Promise<void>((resolve, reject) => {
      let abort: AbortController | undefined;
      const finish = (err?: unknown) => (err ? reject(err) : resolve());
      kc.watch()
        .watch(
          '/api/v1/pods',
          { fieldSelector: `spec.nodeName=${nodeName}`, timeoutSeconds: Math.ceil(seconds) },
          (type, obj: PodObject) => {
            const watched = waiting.get(key(obj.metadata ?? {}));
            if (!watched) return;
            observe(type === 'DELETED' ? undefined : obj, watched);
            if (type === 'DELETED' || isRunningAndReady(obj)) waiting.delete(key(obj.metadata ?? {}));
            if (waiting.size === 0) abort?.abort();
          },
          (err) => finish(err && (err as Error).name !== 'AbortError' ? err : undefined),
        )
        .then((a) => {
          abort = a;
        }, finish);
    });
  });
}
