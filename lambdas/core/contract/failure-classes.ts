/**
 * Failure classes: stable ids shared by the classifier, configuration, metrics dimensions and the CLI.
 * The ids are a contract (see DESIGN.md §1); add new ones, never rename.
 */
export const FAILURE_CLASSES = [
  'sandbox-image',
  'pid-exhaustion',
  'ip-exhaustion',
  'cidr-fragmentation',
  'ipamd-unavailable',
  'cni-permissions',
  'cni-failure',
  'windows-ipam',
  'branch-eni',
  'image-not-found',
  'image-platform',
  'registry-auth',
  'registry-unreachable',
  'registry-tls',
  'rate-limited',
  'disk-full',
  'runtime-failure',
  'image-pull-failed',
  'unknown',
] as const;

/** One of `FAILURE_CLASSES`: why a pod cannot start. */
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** The classes that name why an image pull failed (the registry, the image, the path to it), not where. */
export const PULL_CAUSE_CLASSES: ReadonlySet<FailureClass> = new Set([
  'image-not-found',
  'image-platform',
  'registry-auth',
  'registry-unreachable',
  'registry-tls',
  'rate-limited',
]);

/** How pod-doctor may act on a class: only report, ask a human first, or act on its own (where the action's tier allows). */
export const CLASS_MODES = ['observe', 'approve', 'auto'] as const;
/** observe: recommend only · approve: act after a human approves · auto: act within the risk-tier limits. */
export type ClassMode = (typeof CLASS_MODES)[number];

/** Scope an incident is keyed on: one incident per (cluster, scope, class) per window. */
export type IncidentScope = 'node' | 'subnet' | 'image' | 'cluster';

export const CLASS_SCOPE: Readonly<Record<FailureClass, IncidentScope>> = {
  'sandbox-image': 'node',
  'pid-exhaustion': 'node',
  'ip-exhaustion': 'subnet',
  'cidr-fragmentation': 'subnet',
  'ipamd-unavailable': 'node',
  'cni-permissions': 'cluster',
  'cni-failure': 'node',
  'windows-ipam': 'cluster',
  'branch-eni': 'cluster',
  'image-not-found': 'image',
  'image-platform': 'image',
  'registry-auth': 'image',
  'registry-unreachable': 'image',
  'registry-tls': 'image',
  'rate-limited': 'image',
  'disk-full': 'node',
  'runtime-failure': 'node',
  'image-pull-failed': 'image',
  unknown: 'cluster',
};

/**
 * Default per-class mode. Only the in-place, idempotent pause-image repair runs unattended out of the
 * box; classes whose remedy disrupts a node ask first; everything else is diagnosed and recommended.
 */
export const DEFAULT_CLASS_MODES: Readonly<Record<FailureClass, ClassMode>> = Object.fromEntries(
  FAILURE_CLASSES.map((c) => [
    c,
    c === 'sandbox-image' ? 'auto' : c === 'pid-exhaustion' || c === 'disk-full' ? 'approve' : 'observe',
  ]),
) as Record<FailureClass, ClassMode>;

export function isFailureClass(value: string): value is FailureClass {
  return (FAILURE_CLASSES as readonly string[]).includes(value);
}
