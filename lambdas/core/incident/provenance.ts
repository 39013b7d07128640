import type { Signal } from '../contract/signals.js';

/**
 * Who could have written a signal (DESIGN.md §6). The rank decides what the signal may do:
 *  - `aws`: CloudTrail records, EC2/EKS/IAM API answers: open and re-open incidents, always evaluated;
 *  - `node`: what only a node or the control plane writes (pod status as the kubelet wrote it, the node's
 *    probe, node conditions, the scheduler's binding, the node's own log stream): open incidents;
 *  - `tenant`: what any namespace user may write (Event objects, with any `source.host`; log text of their
 *    containers; pod specs and names; images; registry messages): suggests a class and a place to look,
 *    opens an incident only when a higher-rank fact corroborates it, and spends only its own budget
 *    (per namespace, cluster and hour; see `tenantBudgetScope`).
 */
export const RANKS = ['aws', 'node', 'tenant'] as const;
export type Rank = (typeof RANKS)[number];

/** Higher ranks first (the order candidates are taken in). */
export function rankOrder(r: Rank): number {
  return RANKS.indexOf(r);
}

/**
 * The higher-rank fact that corroborated a tenant-rank signal:
 *  - `pod-status`: the pod exists, its status as the kubelet wrote it shows the failure, and its node is
 *    the one the binding put it on (`spec.nodeName` of the pod read from the API);
 *  - `node-conditions`: the Node object's conditions (written by the kubelet) show the failure.
 */
export type Corroboration = 'pod-status' | 'node-conditions';

/** The rank of a signal as it arrives, before any corroboration. */
export interface SignalProvenance {
  readonly signal: Signal;
  /** Who can write what arrives. */
  readonly writers: string;
  /** The rank of the facts it names (the place: node, instance, pod). */
  readonly where: Rank;
  /** The rank of its text (the class). */
  readonly text: Rank;
  /** What it may trigger. */
  readonly may: string;
}

/**
 * The provenance table of every detection source (docs/security.md prints it; a test holds the two equal).
 * A log group's stream is the node agent's, but what a container prints is its owner's: a line whose
 * envelope names a namespace other than `kube-system` is tenant rank whatever the group.
 */
export const SIGNAL_PROVENANCE: readonly SignalProvenance[] = [
  {
    signal: 'cloudtrail',
    writers: 'AWS (CloudTrail records the call; the principal chooses only its parameters and session name)',
    where: 'aws',
    text: 'aws',
    may: 'open and re-open incidents; a breaking change is always evaluated (its own re-evaluations); session names never name a node',
  },
  {
    signal: 'dataplane-logs',
    writers: "the node's log agent (kubelet, containerd, aws-node, kube-proxy journal and container lines)",
    where: 'node',
    text: 'tenant',
    may: 'open incidents on the node its envelope names (node and instance only from the envelope, never from the text)',
  },
  {
    signal: 'application-logs',
    writers: "the node's log agent, with each container's stdout (the container's owner writes the text)",
    where: 'node',
    text: 'tenant',
    may: 'kube-system containers (aws-node, ipamd): open incidents like dataplane lines; any other namespace: tenant rank, kept and counted, never opens',
  },
  {
    signal: 'kubernetes-events',
    writers: 'anyone who may create Events in a namespace (kubelet, controllers, every tenant), any source.host',
    where: 'tenant',
    text: 'tenant',
    may: "open an incident only when the pod's kubelet-written status (or the Node's conditions) corroborates it, keyed on the pod's bound node; tenant budget per namespace",
  },
  {
    signal: 'sweep',
    writers:
      "the kubelet (pod status: waiting reason, hostIP, conditions) and the scheduler (spec.nodeName); the pod's owner (name, images)",
    where: 'node',
    text: 'tenant',
    may: 'open incidents for pods whose kubelet-written status shows them stuck on their bound node',
  },
];

/** The rank a signal's occurrence has before corroboration when its source does not say. */
export function defaultRank(signal: Signal): Rank {
  switch (signal) {
    case 'cloudtrail':
      return 'aws';
    case 'dataplane-logs':
    case 'sweep':
      return 'node';
    default:
      return 'tenant';
  }
}

/** Namespaces only the cluster's operators write: their containers' lines are node rank. */
export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system'];

/**
 * The rank of a log line: its envelope's namespace (the log agent's metadata, not the line) decides. A
 * container of a namespace other than kube-system writes tenant text whatever the group; a line without
 * a namespace is the group's (dataplane: node; application: tenant).
 */
export function logLineRank(signal: Signal, envelopeNamespace: string | undefined): Rank {
  if (envelopeNamespace !== undefined) return SYSTEM_NAMESPACES.includes(envelopeNamespace) ? 'node' : 'tenant';
  return signal === 'dataplane-logs' ? 'node' : 'tenant';
}

/** A tenant signal's namespace for its budget (an unknown namespace shares one budget: `-`). */
export function tenantBudgetNamespace(namespace: string | undefined): string {
  return namespace && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace) ? namespace : '-';
}
