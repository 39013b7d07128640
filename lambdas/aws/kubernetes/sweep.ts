import {
  LOCAL_PAUSE_REPOSITORY,
  repositoryOf,
  sandboxRepositories,
  untrustedPauseImage,
} from '../../core/contract/trust.js';
import type { Entities } from '../../core/detect/entities.js';
import { extractEntities, registryHost } from '../../core/detect/entities.js';
import type { PodFacts } from '../../core/detect/pod-facts.js';
import { type ClassifiedEvent, classifyPodEvents, dominantClass, type StuckPod } from '../../core/detect/stuck-pods.js';
import { reasonsFor } from '../../core/incident/corroboration.js';
import { aggregate, type Occurrence } from '../../core/incident/incidents.js';
import { mapBounded } from '../../core/text/map-bounded.js';
import { type DroppedCandidate, type OpenIncidentDeps, openIncidents } from '../ingest/open-incidents.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';

export interface SweepOptions {
  /** A pod must have been stuck this long (a normal pull takes seconds to minutes). @default 5 min */
  readonly minAgeMs?: number;
  /** Most pods whose events are read per cluster and sweep (API load bound). @default 50 */
  readonly maxPods?: number;
  /** Sandbox image repositories trusted beyond the EKS pause repositories. @default [] */
  readonly trustedSandboxImages?: readonly string[];
  /**
   * The Region of the swept clusters: its EKS pause repository is one of the node's sandbox images a pod's facts
   * are read against (pod-facts.ts).
   * @default no EKS pause repository (localhost/kubernetes/pause and the trusted ones only)
   */
  readonly region?: string;
}

export interface SweepResult {
  readonly cluster: string;
  readonly stuck: number;
  readonly examined: number;
  readonly occurrences: Occurrence[];
  /** Pods whose events name no known cause (kept for the report, not opened as incidents). */
  readonly unexplained: string[];
}

/**
 * The scheduled sweep: stuck pods of a cluster that produced no log line (logs not shipped, filter
 * missed) become occurrences of the class their events support. The node is the pod's
 * `spec.nodeName` (written by the scheduler, or by whoever created the pod), used only when the kubelet
 * of that node wrote the pod's status (`status.hostIP` and the waiting container statuses), never text
 * from a message; the class must explain the waiting reason the kubelet wrote. A pod whose status does
 * not corroborate it is reported as unexplained and opens nothing.
 */
export async function sweepCluster(
  api: ClusterApi,
  cluster: string,
  now: number,
  options: SweepOptions = {},
): Promise<SweepResult> {
  const minAge = options.minAgeMs ?? 5 * 60_000;
  const stuck = (await api.stuckPods()).filter((p) => !p.createdAt || now - Date.parse(p.createdAt) >= minAge);
  const examined = stuck.slice(0, options.maxPods ?? 50);
  const occurrences: Occurrence[] = [];
  const unexplained: string[] = [];
  for (const pod of examined) {
    const events = await api.podEvents(pod.namespace, pod.name, podFacts(pod, options));
    const occurrence = occurrenceOf(cluster, pod, events, now, options.trustedSandboxImages, podFacts(pod, options));
    if (occurrence) occurrences.push(occurrence);
    else unexplained.push(`${pod.namespace}/${pod.name}`);
  }
  return { cluster, stuck: stuck.length, examined: examined.length, occurrences, unexplained };
}

/** The pod's facts for its events: its waiting images and the node's sandbox images (pod-facts.ts). */
export function podFacts(pod: StuckPod, options: SweepOptions = {}): Omit<PodFacts, 'history'> {
  const trusted = options.trustedSandboxImages ?? [];
  const sandboxImages = options.region
    ? sandboxRepositories(options.region, trusted)
    : [LOCAL_PAUSE_REPOSITORY, ...trusted.map(repositoryOf)];
  return { images: pod.images, sandboxImages };
}

export function occurrenceOf(
  cluster: string,
  pod: StuckPod,
  events: readonly ClassifiedEvent[],
  now: number,
  trustedSandboxImages: readonly string[] = [],
  facts: Omit<PodFacts, 'history'> = {},
): Occurrence | undefined {
  // kubelet's waiting reason and message (e.g. `ErrImagePull: <the pull error>`) count as one more event.
  const waiting = pod.waitingMessage
    ? classifyPodEvents([{ reason: 'Failed', message: `${pod.reason}: ${pod.waitingMessage}` }], facts)
    : [];
  const all = [...events, ...waiting];
  let cls = dominantClass(all);
  if (cls === 'unknown') return undefined;
  const evidence = all.find((e) => e.class === cls);
  // As on the log path: a sandbox failure counts only for a trusted pause image. The pod's facts name only the
  // configured sandbox images, so a class they decided is trusted by construction; one the message decided
  // needs the message's image to be trusted.
  const sandboxImage = extractEntities(evidence?.message ?? '').sandboxImage;
  const byFacts = evidence?.by === 'reason' || evidence?.by === 'image';
  if (
    cls === 'sandbox-image' &&
    !byFacts &&
    (!sandboxImage || untrustedPauseImage(sandboxImage, trustedSandboxImages))
  ) {
    cls = 'image-pull-failed';
  }
  // Corroborated by the kubelet's status, or nothing: the binding proven, the waiting reason the class's.
  if (!pod.nodeName || !pod.statusFromNode || !reasonsFor(cls).includes(pod.reason)) return undefined;
  const image = pod.images[0];
  const entities: Entities = {
    pod: pod.name,
    namespace: pod.namespace,
    ...(pod.nodeName ? { node: pod.nodeName } : {}),
    ...(image ? { image, registryHost: registryHost(image) } : {}),
  };
  return {
    class: cls,
    kind: 'failure',
    cause: evidence?.cause ?? cls,
    signature: null,
    cluster,
    entities,
    at: now,
    evidence: `[kubernetes sweep] ${pod.reason} ${pod.namespace}/${pod.name}: ${evidence?.message ?? ''}`,
    signal: 'sweep',
    // The pod's owner made it (its images, its events' text): tenant rank, corroborated by the kubelet's status.
    rank: 'tenant',
    corroboratedBy: 'pod-status',
    tenantNamespace: pod.namespace,
  };
}

export interface SweepDeps extends OpenIncidentDeps {
  readonly clusters: readonly string[];
  readonly api: (cluster: string) => Promise<ClusterApi>;
  readonly now: () => number;
  readonly options?: SweepOptions;
  /** Clusters swept at once. @default 8 */
  readonly concurrency?: number;
  /** Longest one cluster may take; a slower one is reported and the others go on. @default 45 s */
  readonly clusterDeadlineMs?: number;
}

/** A cluster's sweep took longer than its deadline (the others were not held up by it). */
export class ClusterSweepTimeoutError extends Error {
  override readonly name = 'ClusterSweepTimeoutError';
}

/** `f`, or ClusterSweepTimeoutError after `ms` (the slow call is left to finish on its own). */
function withDeadline<T>(f: () => Promise<T>, ms: number, cluster: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ClusterSweepTimeoutError(`cluster ${cluster}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([f(), deadline]).finally(() => clearTimeout(timer));
}

export interface SweepOutcome {
  readonly clusters: { cluster: string; stuck: number; examined: number; unexplained: number; error?: string }[];
  readonly incidentsOpened: string[];
  readonly incidentsJoined: string[];
  readonly workflowsStarted: string[];
  readonly unrecordable: number;
  /** Candidates over a limit (per sweep, per cluster and hour): not evaluated. */
  readonly dropped: DroppedCandidate[];
}

/**
 * Every configured cluster, several at once (`concurrency`), each within its own deadline: sweep,
 * then open or join incidents as the log path does. A cluster that cannot be read, or is slow, is
 * reported with its error and never holds up or fails another.
 */
export async function sweepClusters(deps: SweepDeps): Promise<SweepOutcome> {
  const now = deps.now();
  const deadline = deps.clusterDeadlineMs ?? 45_000;
  const results = await mapBounded(deps.clusters, deps.concurrency ?? 8, async (cluster) => {
    try {
      const r = await withDeadline(
        async () => sweepCluster(await deps.api(cluster), cluster, now, deps.options),
        deadline,
        cluster,
      );
      return { cluster, stuck: r.stuck, examined: r.examined, unexplained: r.unexplained.length, found: r.occurrences };
    } catch (e) {
      const error = `${(e as Error).name}: ${(e as Error).message}`.slice(0, 500);
      return { cluster, stuck: 0, examined: 0, unexplained: 0, error, found: [] as Occurrence[] };
    }
  });
  const occurrences = results.flatMap((r) => r.found);
  const clusters: SweepOutcome['clusters'] = results.map(({ found: _, ...c }) => c);
  const stats = { rejected: 0 };
  const r = await openIncidents(aggregate(occurrences), stats, deps, now);
  return {
    clusters,
    incidentsOpened: r.opened,
    incidentsJoined: r.joined,
    workflowsStarted: r.started,
    unrecordable: r.unrecordable.length,
    dropped: [...r.dropped, ...r.deferred],
  };
}
