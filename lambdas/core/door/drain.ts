import type { ClassMode } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';
import { actionDisposition } from './kubernetes-actions.js';

/**
 * PID exhaustion's last step: when the approval-gated runtime restart did not fix the node, cordon
 * and drain it (Kubernetes API, PodDisruptionBudgets honoured) so its node group can replace it.
 * pod-doctor never terminates the instance: with EKS node auto repair on, auto repair replaces it
 * (no double action); without it, a human does. Pure planning and wording; the drain itself is in
 * lambdas/aws/door/evictions.ts.
 */

/** Who replaces the node once it is drained. */
export interface Replacement {
  /** EKS node auto repair of the managed node group (DescribeNodegroup nodeRepairConfig.enabled); null: unknown. */
  readonly nodeAutoRepair: boolean | null;
  /** The sentence the summary and the approval request carry. */
  readonly text: string;
}

/** The drain as Decide plans it (it runs only after the restart's verification failed). */
export interface DrainPlan {
  readonly id: 'drain-node';
  readonly description: string;
  /** approve: asked for after a failed restart; recommend: a human drains; blocked: not at all. */
  readonly disposition: 'approve' | 'recommend' | 'blocked';
  readonly reason: string;
  readonly replacement: Replacement;
}

export interface DrainPlanInput {
  readonly mode: ClassMode;
  readonly killSwitch: boolean;
  /** The restart follow-up's disposition (the drain only follows a restart that may run). */
  readonly restart?: 'auto' | 'approve' | 'recommend' | 'blocked';
  readonly instanceId?: string;
  readonly nodegroupName?: string;
  /** nodeRepairConfig.enabled of the node's managed node group; undefined: not read. */
  readonly nodeAutoRepair?: boolean;
  /** Every finding of the diagnosis: `k8s.*` tell whether the Kubernetes API answered. */
  readonly findings: readonly Finding[];
}

/** Who replaces the node, from the node group's auto repair setting. */
export function replacementOf(i: Pick<DrainPlanInput, 'instanceId' | 'nodegroupName' | 'nodeAutoRepair'>): Replacement {
  const id = i.instanceId ?? 'the instance';
  if (!i.nodegroupName || i.nodeAutoRepair === undefined)
    return {
      nodeAutoRepair: null,
      text: `replace the node by hand (it is not in a managed node group pod-doctor could read); pod-doctor never terminates instances`,
    };
  if (i.nodeAutoRepair)
    return {
      nodeAutoRepair: true,
      text: `EKS node auto repair of node group ${i.nodegroupName} replaces the node when its node conditions report it unhealthy; pod-doctor does not terminate ${id} (no double action)`,
    };
  return {
    nodeAutoRepair: false,
    text: `node group ${i.nodegroupName} has no node auto repair: terminate ${id} (aws autoscaling terminate-instance-in-auto-scaling-group --instance-id ${id} --no-should-decrement-desired-capacity) and the node group replaces it; pod-doctor never terminates instances`,
  };
}

/**
 * Whether the Kubernetes API answered during the diagnosis: the inspection of a known node always
 * reports `k8s.node`; without cluster access (no Kubernetes function, no access entry) it does not.
 */
export function clusterReachable(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.id === 'k8s.node' && f.status !== 'error');
}

/** Plans the drain that follows a failed runtime restart, or undefined when no restart is planned. */
export function planDrain(i: DrainPlanInput): DrainPlan | undefined {
  if (!i.instanceId || !i.restart) return undefined;
  const replacement = replacementOf(i);
  const base = {
    id: 'drain-node' as const,
    description: 'cordon the node and evict its pods (PodDisruptionBudgets honoured) so it can be replaced',
    replacement,
  };
  if (i.restart === 'recommend' || i.restart === 'blocked')
    return { ...base, disposition: 'recommend', reason: `the runtime restart is not run by pod-doctor (${i.restart})` };
  const d = actionDisposition({ action: 'drain-node', mode: i.mode, killSwitch: i.killSwitch });
  if (d.disposition === 'blocked') return { ...base, disposition: 'blocked', reason: d.reason };
  if (!clusterReachable(i.findings))
    return {
      ...base,
      disposition: 'recommend',
      reason: 'pod-doctor cannot reach the Kubernetes API of this cluster (no access entry or no Kubernetes function)',
    };
  return { ...base, disposition: 'approve', reason: d.reason };
}

/** The command a human runs when pod-doctor does not drain. */
export const manualDrain = (node: string) =>
  `kubectl drain ${node} --ignore-daemonsets --delete-emptydir-data (it honours PodDisruptionBudgets)`;

/** What the drain did, as the Kubernetes function reports it (lambdas/aws/door/evictions.ts). */
export interface DrainResult {
  readonly evicted: readonly string[];
  /** Gone before their eviction. */
  readonly gone: readonly string[];
  readonly terminated: readonly string[];
  readonly terminating: readonly string[];
  readonly waitedSeconds: number;
  readonly blocked: readonly { readonly pod: string; readonly budget: string }[];
  readonly failed: readonly { readonly pod: string; readonly error: string }[];
  readonly unmanaged: readonly string[];
  readonly leftToOthers: boolean;
  readonly complete: boolean;
}

/** Everything the workflow knows of the drain when it summarizes. */
export interface DrainRun {
  readonly plan?: DrainPlan | null;
  /** The runtime restart's verification (the drain only follows a failed one). */
  readonly restartVerified?: boolean;
  readonly approval?: { readonly approved?: boolean; readonly reason?: string };
  /** Why the gate refused right before the drain. */
  readonly blocked?: string;
  readonly result?: DrainResult;
  /** The Kubernetes function failed (no cluster access by then). */
  readonly error?: string;
  /** The node's Kubernetes name (or instance id) for the command a human runs. */
  readonly node: string;
}

export interface DrainOutcome {
  /** Appended to the incident's outcome. */
  readonly outcome: string;
  readonly nextStep: string;
  /** The drain as an action of the summary. */
  readonly status: string;
  readonly detail: readonly string[];
}

/** The drain part of the outcome, or undefined when the restart did not fail verification (or no drain is planned). */
export function drainOutcome(r: DrainRun): DrainOutcome | undefined {
  if (!r.plan || r.restartVerified !== false) return undefined;
  const by = r.plan.replacement.text;
  const manual = `drain the node: ${manualDrain(r.node)}; then ${by}`;
  const notRun = (why: string, status: string): DrainOutcome => ({
    outcome: `drain-node not run: ${why}`,
    nextStep: manual,
    status,
    detail: [],
  });
  if (r.result) return drained(r.result, by);
  if (r.error) return notRun(`the Kubernetes API did not answer (${r.error}): drain recommended`, 'not sent');
  if (r.blocked) return notRun(`blocked right before acting: ${r.blocked}`, 'blocked');
  if (r.approval?.approved === false) return notRun(r.approval.reason ?? 'rejected by the approver', 'not run');
  return {
    outcome: `drain-node recommended: ${r.plan.reason}`,
    nextStep: manual,
    status: r.plan.disposition === 'blocked' ? 'blocked' : 'recommend',
    detail: [],
  };
}

const count = (n: number, what: string) => `${n} ${what}`;

/** What a drain that ran did: evicted vs gone (terminated) vs still terminating, and what stays. */
function drained(d: DrainResult, by: string): DrainOutcome {
  if (d.leftToOthers)
    return {
      outcome:
        'drain-node: the node was already cordoned by someone else (node auto repair or an operator): left to them, nothing evicted',
      nextStep: by,
      status: 'left to others',
      detail: [],
    };
  const parts = [
    'cordoned',
    `${count(d.evicted.length, 'pod(s) evicted')}: ${d.terminated.length} gone, ${d.terminating.length} still terminating after ${d.waitedSeconds} s`,
    ...(d.gone.length ? [count(d.gone.length, 'already gone')] : []),
    ...(d.blocked.length ? [count(d.blocked.length, 'refused by a PodDisruptionBudget')] : []),
    ...(d.unmanaged.length ? [count(d.unmanaged.length, 'without a controller left in place')] : []),
    ...(d.failed.length ? [count(d.failed.length, 'eviction(s) failed')] : []),
  ];
  const stays = [...d.blocked.map((b) => b.pod), ...d.unmanaged, ...d.failed.map((f) => f.pod), ...d.terminating];
  return {
    outcome: `drain-node: ${parts.join(', ')}`,
    nextStep: d.complete
      ? by
      : `still on the node: ${stays.join(', ')} (move them or wait for their budget) before it is replaced; ${by}`,
    status: d.complete ? 'drained' : 'partly drained',
    detail: [
      ...d.terminated.map((p) => `evicted and gone: ${p}`),
      ...d.terminating.map((p) => `evicted, still terminating: ${p}`),
      ...d.blocked.map((b) => `refused: ${b.pod}: ${b.budget}`),
      ...d.unmanaged.map((p) => `left (no controller would re-create it): ${p}`),
      ...d.failed.map((f) => `failed: ${f.pod}: ${f.error}`),
    ],
  };
}
