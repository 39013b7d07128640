import type { FailureClass } from '../contract/failure-classes.js';
import { type PodFacts, type RefinedBy, refineWithPodFacts } from './pod-facts.js';

/**
 * Pods that never start, read from Kubernetes objects. Only the fields used are typed: the shapes
 * are those of core/v1 Pod and Event (`kubectl get -o json`). Everything here is tenant-controlled
 * text (names, images, messages): it classifies and is reported, it never chooses an action.
 */
export interface PodObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly creationTimestamp?: string | Date;
    readonly deletionTimestamp?: string | Date;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly {
      readonly kind?: string;
      readonly name?: string;
      readonly uid?: string;
      readonly controller?: boolean;
    }[];
  };
  readonly spec?: { readonly nodeName?: string };
  readonly status?: {
    readonly phase?: string;
    /** The node's IP, written by the kubelet that runs the pod (absent until one does). */
    readonly hostIP?: string;
    readonly containerStatuses?: readonly ContainerStatus[];
    readonly initContainerStatuses?: readonly ContainerStatus[];
  };
}

export interface ContainerStatus {
  readonly name?: string;
  readonly restartCount?: number;
  readonly image?: string;
  readonly ready?: boolean;
  readonly state?: {
    readonly waiting?: { readonly reason?: string; readonly message?: string };
    readonly running?: { readonly startedAt?: string | Date };
  };
}

export interface NodeObject {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: { readonly providerID?: string; readonly unschedulable?: boolean };
  readonly status?: {
    readonly nodeInfo?: {
      readonly osImage?: string;
      readonly containerRuntimeVersion?: string;
      readonly kubeletVersion?: string;
    };
  };
}

/** How pod-doctor can act on a node's host: SSM documents, or nothing on the host at all. */
export type NodeHostAccess = 'ssm' | 'eks-auto-mode' | 'bottlerocket';

/**
 * EKS Auto Mode nodes (label `eks.amazonaws.com/compute-type: auto`) allow no SSM access at all;
 * Bottlerocket runs Run Command in its control container, which cannot see the host's containerd.
 * On both pod-doctor diagnoses from the account and the API and proposes node replacement instead.
 */
export function nodeHostAccess(node: NodeObject | undefined): NodeHostAccess {
  if (node?.metadata?.labels?.['eks.amazonaws.com/compute-type'] === 'auto') return 'eks-auto-mode';
  if (/bottlerocket/i.test(node?.status?.nodeInfo?.osImage ?? '')) return 'bottlerocket';
  return 'ssm';
}

export interface EventObject {
  readonly reason?: string;
  readonly message?: string;
  readonly type?: string;
  readonly count?: number;
  readonly lastTimestamp?: string | Date | null;
  readonly eventTime?: string | Date | null;
  readonly involvedObject?: { readonly kind?: string; readonly name?: string; readonly namespace?: string };
}

/** Waiting reasons of a pod that never starts (what `kubectl get pods` shows in STATUS). */
export const STUCK_REASONS = ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff'] as const;
export type StuckReason = (typeof STUCK_REASONS)[number];

/** Event reasons that carry the cause of a stuck pod. */
export const CAUSE_EVENT_REASONS = ['FailedCreatePodSandBox', 'Failed', 'BackOff'] as const;

export interface StuckPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly nodeName?: string;
  readonly reason: StuckReason;
  /** Images of the containers that wait (for pull failures). */
  readonly images: readonly string[];
  /** Kind of the controlling owner (ReplicaSet, StatefulSet, DaemonSet, Job...), if any. */
  readonly controller?: string;
  readonly createdAt?: string;
  /** kubelet's waiting message of the first waiting container (capped), e.g. the pull error. */
  readonly waitingMessage?: string;
  /** The kubelet of `nodeName` wrote the pod's status (`status.hostIP` set): the binding is corroborated. */
  readonly statusFromNode?: boolean;
}

export interface ClassifiedEvent {
  readonly reason: string;
  readonly class: FailureClass;
  readonly cause: string | null;
  readonly message: string;
  readonly count: number;
  readonly at?: string;
  /** What decided the class: the message alone, or the pod's facts (its reason, image, other events). */
  readonly by?: RefinedBy;
}

const MAX_MESSAGE = 2_000;

function iso(value: string | Date | null | undefined): string | undefined {
  if (!value) return undefined;
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

function stuckReasonOf(statuses: readonly ContainerStatus[]): StuckReason | undefined {
  const reasons = statuses.map((s) => s.state?.waiting?.reason);
  // A pull failure names the cause better than ContainerCreating when both are present.
  return (['ErrImagePull', 'ImagePullBackOff', 'ContainerCreating'] as const).find((r) => reasons.includes(r));
}

/** The pod as a stuck pod, or undefined when it is not stuck in one of {@link STUCK_REASONS}. */
export function asStuckPod(pod: PodObject): StuckPod | undefined {
  if (pod.status?.phase && pod.status.phase !== 'Pending') return undefined;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const reason = stuckReasonOf(statuses);
  if (!reason || !pod.metadata?.name || !pod.metadata.namespace) return undefined;
  const waiting = statuses.filter((s) => s.state?.waiting?.reason === reason);
  const controller = pod.metadata.ownerReferences?.find((o) => o.controller)?.kind;
  const waitingMessage = waiting.find((s) => s.state?.waiting?.message)?.state?.waiting?.message?.slice(0, MAX_MESSAGE);
  return {
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    reason,
    images: [...new Set(waiting.map((s) => s.image).filter((i): i is string => Boolean(i)))],
    ...(controller ? { controller } : {}),
    ...(waitingMessage ? { waitingMessage } : {}),
    ...(pod.spec?.nodeName && pod.status?.hostIP ? { statusFromNode: true } : {}),
    ...(iso(pod.metadata.creationTimestamp) ? { createdAt: iso(pod.metadata.creationTimestamp) } : {}),
  };
}

/** True when every container of the pod runs and is ready (the positive verification signal). */
export function isRunningAndReady(pod: PodObject): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return pod.status?.phase === 'Running' && statuses.length > 0 && statuses.every((s) => s.ready && s.state?.running);
}

/**
 * Classifies the cause events of a pod with the same catalogue the log path uses, each with the pod's facts
 * (pod-facts.ts): its images, the node's sandbox images, and the pod's other cause events as its history.
 */
export function classifyPodEvents(
  events: readonly EventObject[],
  facts: Omit<PodFacts, 'history'> = {},
): ClassifiedEvent[] {
  // kubelet reports `BackOff` (Back-off pulling image) as type Normal: filter by reason only.
  const cause = events.filter((e) => (CAUSE_EVENT_REASONS as readonly string[]).includes(e.reason ?? ''));
  return cause.map((e) => {
    const message = (e.message ?? '').slice(0, MAX_MESSAGE);
    const history = cause.filter((other) => other !== e);
    const c = refineWithPodFacts({ reason: e.reason, message }, { ...facts, history });
    const at = iso(e.lastTimestamp) ?? iso(e.eventTime);
    return {
      reason: e.reason ?? '',
      class: c.class,
      cause: c.cause,
      message,
      count: e.count ?? 1,
      ...(at ? { at } : {}),
      by: c.by,
    };
  });
}

/** The most specific class the events support: the most frequent non-unknown class, else unknown. */
export function dominantClass(events: readonly ClassifiedEvent[]): FailureClass {
  const counts = new Map<FailureClass, number>();
  for (const e of events) {
    if (e.class === 'unknown' || e.class === 'image-pull-failed') continue;
    counts.set(e.class, (counts.get(e.class) ?? 0) + e.count);
  }
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
  if (best) return best[0];
  return events.some((e) => e.class === 'image-pull-failed') ? 'image-pull-failed' : 'unknown';
}
