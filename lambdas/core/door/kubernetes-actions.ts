import type { ClassMode } from '../contract/failure-classes.js';
import type { PodObject } from '../detect/stuck-pods.js';

/**
 * Actions pod-doctor takes inside a cluster through the Kubernetes API, with their risk tiers. The
 * node and the pods an action touches come from trusted fields only (the node the workflow resolved
 * from EC2, `spec.nodeName`, `ownerReferences` the API server keeps), never from log or event text.
 */
export const KUBERNETES_ACTIONS = [
  'cordon',
  'uncordon',
  'restart-aws-node',
  'enable-windows-ipam',
  'evict-stuck-pods',
  'drain-node',
] as const;
export type KubernetesAction = (typeof KUBERNETES_ACTIONS)[number];

export interface ActionRisk {
  /** What the action disrupts, for the approval request and the summary. */
  readonly effect: string;
  /** Whether a class in `auto` mode with the `auto` tier may run it without asking. */
  readonly autoAllowed: boolean;
}

/**
 * Risk tier per action: every action asks first by default (`approve`); drain never runs
 * without a human, whatever the configuration says.
 */
export const ACTION_RISK: Readonly<Record<KubernetesAction, ActionRisk>> = {
  cordon: { effect: 'no new pods are scheduled on the node; running pods keep running', autoAllowed: true },
  uncordon: { effect: 'the node accepts new pods again', autoAllowed: true },
  'restart-aws-node': {
    effect: 'the VPC CNI on one node restarts: pod networking there pauses for seconds',
    autoAllowed: true,
  },
  'enable-windows-ipam': {
    effect: 'the VPC resource controller assigns IPs to Windows pods (ConfigMap amazon-vpc-cni)',
    autoAllowed: true,
  },
  'evict-stuck-pods': {
    effect: 'the stuck pods are deleted through the Eviction API and re-created by their controllers',
    autoAllowed: true,
  },
  'drain-node': {
    effect: 'every pod on the node is evicted (PodDisruptionBudgets honoured) so the node can be replaced',
    autoAllowed: false,
  },
};

export type ActionTier = 'dry-run' | 'approve' | 'auto';
export type ActionDisposition = 'auto' | 'approve' | 'dry-run' | 'blocked';

export interface ActionPlanInput {
  readonly action: KubernetesAction;
  readonly mode: ClassMode;
  /** The configured tier for the action. @default 'approve' */
  readonly tier?: ActionTier;
  readonly killSwitch: boolean;
}

/** How one Kubernetes action may run for an incident, and why. */
export function actionDisposition(i: ActionPlanInput): { disposition: ActionDisposition; reason: string } {
  if (i.killSwitch) return { disposition: 'blocked', reason: 'kill switch is on' };
  if (i.mode === 'observe') return { disposition: 'blocked', reason: 'the class is in observe mode: recommended only' };
  const tier = i.tier ?? 'approve';
  if (tier === 'dry-run') return { disposition: 'dry-run', reason: `${i.action} runs as dry run (configuration)` };
  if (tier === 'auto' && !ACTION_RISK[i.action].autoAllowed)
    return { disposition: 'approve', reason: `${i.action} always asks first (risk tier: approve always)` };
  if (tier === 'auto' && i.mode === 'auto')
    return { disposition: 'auto', reason: `${i.action} is auto (configuration) and the class is in auto mode` };
  return { disposition: 'approve', reason: `${i.action} asks first (default tier approve)` };
}

/** Controllers that re-create a deleted pod. */
export const RECREATING_CONTROLLERS = ['ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'] as const;

/** Kind of the pod's controlling owner reference, if any. */
export function controllerOf(pod: PodObject): string | undefined {
  return pod.metadata?.ownerReferences?.find((o) => o.controller)?.kind;
}

/** A static pod's mirror: the kubelet owns it, the API cannot evict or delete it for good. */
export function isMirrorPod(pod: PodObject): boolean {
  return pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined;
}

/** A pod by namespace/name. */
export const podKey = (p: PodObject) => `${p.metadata?.namespace}/${p.metadata?.name}`;

export interface PodSelection {
  /** Pods the action evicts. */
  readonly evict: readonly PodObject[];
  /** Pods left alone, each with why. */
  readonly skipped: readonly { readonly pod: string; readonly why: string }[];
}

/** Stuck pods worth evicting after a repair: only those a controller will re-create. */
export function evictableStuckPods(pods: readonly PodObject[]): PodSelection {
  const evict: PodObject[] = [];
  const skipped: { pod: string; why: string }[] = [];
  for (const pod of pods) {
    const kind = controllerOf(pod);
    if (kind && (RECREATING_CONTROLLERS as readonly string[]).includes(kind)) evict.push(pod);
    else
      skipped.push({
        pod: podKey(pod),
        why: kind ? `controller ${kind} is not known to re-create it` : 'no controller would re-create it',
      });
  }
  return { evict, skipped };
}

/**
 * What a drain evicts, as `kubectl drain` decides it without `--force`: DaemonSet pods and mirror
 * pods are skipped (their controller is the node), pods no controller would re-create are not
 * deleted (the drain reports them instead of forcing).
 * https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/
 */
export function drainSelection(pods: readonly PodObject[]): PodSelection & { readonly unmanaged: readonly string[] } {
  const evict: PodObject[] = [];
  const skipped: { pod: string; why: string }[] = [];
  const unmanaged: string[] = [];
  for (const pod of pods) {
    const kind = controllerOf(pod);
    if (isMirrorPod(pod)) skipped.push({ pod: podKey(pod), why: 'mirror pod of a static pod (the kubelet owns it)' });
    else if (kind === 'DaemonSet') skipped.push({ pod: podKey(pod), why: 'DaemonSet pod (it belongs on every node)' });
    else if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed')
      skipped.push({ pod: podKey(pod), why: `already ${pod.status.phase}` });
    else if (!kind) unmanaged.push(podKey(pod));
    else evict.push(pod);
  }
  return { evict, skipped, unmanaged };
}
