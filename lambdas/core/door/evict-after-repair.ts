import type { ClassMode } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';
import { clusterReachable } from './drain.js';
import { ACTION_RISK, type ActionTier, actionDisposition } from './kubernetes-actions.js';

/**
 * After a verified node repair (the pause image restored), pods that were stuck may stay stuck: the
 * kubelet backs off on a sandbox it failed to create, an image pull back-off waits up to five
 * minutes. Evicting them (Eviction API, PodDisruptionBudgets honoured) lets their controllers
 * re-create them on the healthy node. Pure planning and wording; the evictions are in
 * lambdas/aws/door/evictions.ts, the watch of the new pods in replacements.ts.
 */

/** The node repairs whose verification may be followed by the eviction. */
export const EVICT_AFTER = ['repair-pause-image'] as const;

/** The eviction as Decide plans it (it runs only when the repaired node is healthy and pods stay stuck). */
export interface EvictPlan {
  readonly id: 'evict-stuck-pods';
  readonly description: string;
  /** auto: runs; approve: asked for; dry-run: the API server's dry run; recommend / blocked: not run. */
  readonly disposition: 'auto' | 'approve' | 'dry-run' | 'recommend' | 'blocked';
  readonly reason: string;
}

export interface EvictPlanInput {
  readonly mode: ClassMode;
  /** The class's remedy tier (the tier every cluster action of the class runs under). @default 'approve' */
  readonly tier?: ActionTier;
  readonly killSwitch: boolean;
  readonly clusterOptedIn: boolean;
  /** The planned node action (the eviction only follows a repair in {@link EVICT_AFTER}). */
  readonly nodeAction?: string;
  /** Every finding of the diagnosis: `k8s.*` tell whether the Kubernetes API answered. */
  readonly findings: readonly Finding[];
}

/** Plans the eviction after the repair, or undefined when no repair it could follow is planned. */
export function planEviction(i: EvictPlanInput): EvictPlan | undefined {
  if (!(EVICT_AFTER as readonly string[]).includes(i.nodeAction ?? '')) return undefined;
  const base = {
    id: 'evict-stuck-pods' as const,
    description: `if pods stay stuck on the repaired node: ${ACTION_RISK['evict-stuck-pods'].effect} (pods no controller owns are left)`,
  };
  const d = actionDisposition({
    action: 'evict-stuck-pods',
    mode: i.mode,
    killSwitch: i.killSwitch,
    ...(i.tier ? { tier: i.tier } : {}),
  });
  if (d.disposition === 'blocked') return { ...base, ...d };
  if (!i.clusterOptedIn) return { ...base, disposition: 'blocked', reason: 'cluster is not configured for pod-doctor' };
  if (!clusterReachable(i.findings))
    return {
      ...base,
      disposition: 'recommend',
      reason: 'pod-doctor cannot reach the Kubernetes API of this cluster (no access entry or no Kubernetes function)',
    };
  return { ...base, ...d };
}

/** An evicted pod and the controller that re-creates it (uids from the API object, for the watch after). */
export interface EvictedPod {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly owner: { readonly kind: string; readonly name: string; readonly uid: string };
}

/** What evict-stuck-pods reported (lambdas/aws/door/evictions.ts). */
export interface EvictionResult {
  readonly evicted: readonly string[];
  readonly gone: readonly string[];
  readonly blocked: readonly { readonly pod: string; readonly budget: string }[];
  readonly failed: readonly { readonly pod: string; readonly error: string }[];
  readonly skipped: readonly { readonly pod: string; readonly why: string }[];
  readonly dryRun: boolean;
}

/** What the watch of the re-created pods reported (lambdas/aws/kubernetes/replacements.ts). */
export interface ReplacementResult {
  readonly replacements: readonly {
    readonly evicted: string;
    readonly pod?: string;
    readonly runningAfterSeconds?: number;
  }[];
  readonly verified: boolean;
  readonly windowSeconds: number;
}

/** Everything the workflow knows of the eviction when it summarizes. */
export interface EvictionRun {
  readonly plan?: EvictPlan | null;
  /** The repair's verification said: node healthy, pods still stuck. */
  readonly podsStillStuck?: boolean;
  readonly approval?: { readonly approved?: boolean; readonly reason?: string };
  /** Why the gate refused right before the eviction. */
  readonly blocked?: string;
  readonly result?: EvictionResult;
  readonly replacements?: ReplacementResult;
  /** The cluster's API did not answer the door, or the watch failed. */
  readonly error?: string;
  /** The stuck pods the repair's watch named. */
  readonly stuck: readonly string[];
}

export interface EvictionOutcome {
  /** The re-created pods all run: the incident is repaired and verified. */
  readonly verified: boolean;
  readonly outcome: string;
  readonly nextStep: string;
  readonly status: string;
  readonly detail: readonly string[];
}

const byHand = (pods: readonly string[]) =>
  `delete the stuck pods so their controllers re-create them: ${pods.map((p) => `kubectl delete pod -n ${p.replace('/', ' ')}`).join('; ')}`;

/** The eviction's part of the outcome, or undefined when the repair did not leave pods stuck on a healthy node. */
export function evictionOutcome(r: EvictionRun): EvictionOutcome | undefined {
  if (!r.plan || !r.podsStillStuck) return undefined;
  const notRun = (why: string, status: string): EvictionOutcome => ({
    verified: false,
    outcome: `evict-stuck-pods not run: ${why}`,
    nextStep: byHand(r.stuck),
    status,
    detail: [],
  });
  if (r.result) return evicted(r.result, r.replacements, r.error);
  if (r.error) return notRun(`the cluster's API did not answer (${r.error}): nothing known to be evicted`, 'failed');
  if (r.blocked) return notRun(`blocked right before acting: ${r.blocked}`, 'blocked');
  if (r.approval?.approved === false) return notRun(r.approval.reason ?? 'rejected by the approver', 'not run');
  return notRun(`${r.plan.disposition}: ${r.plan.reason}`, r.plan.disposition);
}

/** Why each pod was not evicted: no controller, a budget's refusal, an error. */
function leftAlone(d: EvictionResult): string[] {
  return [
    ...d.skipped.map((s) => `not evicted: ${s.pod}: ${s.why}`),
    ...d.blocked.map((b) => `refused by a PodDisruptionBudget: ${b.pod}: ${b.budget}`),
    ...d.failed.map((f) => `eviction failed: ${f.pod}: ${f.error}`),
    ...d.gone.map((p) => `already gone: ${p}`),
  ];
}

function evicted(d: EvictionResult, w: ReplacementResult | undefined, error: string | undefined): EvictionOutcome {
  const left = leftAlone(d);
  const stays = [...d.skipped.map((s) => s.pod), ...d.blocked.map((b) => b.pod), ...d.failed.map((f) => f.pod)];
  if (d.dryRun)
    return {
      verified: false,
      outcome: `dry run: evict-stuck-pods would evict ${d.evicted.join(', ') || 'no pod'}`,
      nextStep: d.evicted.length ? byHand(d.evicted) : 'handle the stuck pods by hand',
      status: 'dry run',
      detail: [...d.evicted.map((p) => `would evict: ${p}`), ...left],
    };
  const ran = (w?.replacements ?? []).map((x) =>
    x.runningAfterSeconds !== undefined
      ? `${x.evicted} → ${x.pod} Running after ${x.runningAfterSeconds} s`
      : `${x.evicted} → ${x.pod ?? 'no new pod'} not Running after ${w?.windowSeconds} s`,
  );
  const verified = d.evicted.length > 0 && w?.verified === true && stays.length === 0;
  const head = `evicted ${d.evicted.join(', ') || 'no pod'}`;
  const watch = w
    ? `; re-created: ${ran.join(', ')}`
    : error
      ? `; the re-created pods were not watched (${error})`
      : '';
  return {
    verified,
    outcome: `evict-stuck-pods: ${head}${watch}${stays.length ? `; left stuck: ${stays.join(', ')}` : ''}`,
    nextStep: verified
      ? 'none: pod-doctor keeps watching for a recurrence'
      : `look at the pods that still do not run (kubectl describe pod): ${[...stays, ...notRunning(w, d)].join(', ') || 'see below'}; if they fail on this node again, cordon and drain it so the node group replaces it`,
    status: verified ? 're-created and running' : d.evicted.length ? 'evicted, not all running' : 'nothing evicted',
    detail: [...ran.map((x) => `re-created: ${x}`), ...left],
  };
}

/** Evicted pods whose replacement does not run (or never appeared). */
function notRunning(w: ReplacementResult | undefined, d: EvictionResult): string[] {
  if (!w) return [...d.evicted];
  return w.replacements.filter((x) => x.runningAfterSeconds === undefined).map((x) => x.pod ?? x.evicted);
}
