import type { KubeApiServer } from './kube-api-server.js';

type Obj = Record<string, unknown>;

/** A pod as the API server shows it once its containers run and are ready. */
export function runningPod(pod: Obj, startedAt = new Date().toISOString()): Obj {
  const copy = structuredClone(pod) as { status: Obj };
  copy.status.phase = 'Running';
  copy.status.containerStatuses = [{ name: 'app', ready: true, state: { running: { startedAt } } }];
  return copy;
}

/**
 * The kubelet of one node as the local API server sees it. A real kubelet retries the sandbox of a
 * pod whose sandbox failed after its pod worker's back-off (10 s, jittered to 15 s:
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/pod_workers.go); here every
 * `periodMs`. A retry succeeds only when `sandboxImagePresent()` says the node's runtime really
 * holds the sandbox image (the local containerd, asked each time): then the node's stuck pods run.
 * Nothing else makes them run, so a repair that did not restore the image is not verified.
 */
export function startKubelet(
  server: KubeApiServer,
  nodeName: string,
  sandboxImagePresent: () => boolean,
  periodMs = 150,
): () => void {
  const timer = setInterval(() => {
    const mine = server.cluster.pods.filter(
      (p) =>
        (p.spec as { nodeName?: string } | undefined)?.nodeName === nodeName && (p.status as Obj)?.phase === 'Pending',
    );
    if (mine.length === 0 || !sandboxImagePresent()) return;
    server.cluster.pods = server.cluster.pods.map((p) => (mine.includes(p) ? runningPod(p) : p));
  }, periodMs);
  return () => clearInterval(timer);
}
