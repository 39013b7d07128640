import type { ClassMode, FailureClass } from '../contract/failure-classes.js';
import type { CauseVerdict, EvidenceKind } from '../policy/cause-evidence.js';
import { breakerBlock, type PolicyLimits, type RiskTier } from '../policy/policy.js';
import type { RemedyTier } from '../remedy/apply-path.js';
import {
  type Action,
  type ActionKind,
  type ActionRequest,
  isAccountKind,
  isClusterRemedyKind,
  isNodeCommandKind,
} from './action-request.js';
import { actionDisposition, type KubernetesAction } from './kubernetes-actions.js';

/**
 * The door's gate, pure: what one action request needs right before it runs. The door
 * (lambdas/aws/door) reads the facts — kill switch, approval, the cause on evidence the target owns,
 * the breaker — calls {@link gate}, then reserves the hourly cap and the cooldowns with conditional
 * writes and only then makes the change.
 */

/** What the gate demands of a kind of action. */
export interface KindRules {
  readonly family: 'node-command' | 'account' | 'cluster' | 'kubernetes';
  /** Changes something; false for the node probe (a read the kill switch does not stop). */
  readonly mutating: boolean;
  readonly tier: RiskTier | 'read-only';
  /**
   * The evidence that must show the cause right before the action, owned by its target: the node's
   * own probe (still failing, or healthy again before an eviction), aws-node's own pod, the
   * cluster's own objects, or the account re-read by the remedy's apply path.
   */
  readonly evidence: EvidenceKind;
  /** Acts on one node: counts toward the node group's breaker and holds the node's cooldown. */
  readonly nodeLevel: boolean;
  /**
   * Takes a slot of the cluster's hourly action cap and counts as an action in the history. Every
   * change does, but the events write-back: it tells, changes no workload, and has its own cap per
   * incident (lambdas/core/voices/event-series.ts). @default true
   */
  readonly hourlyCap?: boolean;
}

const node = (evidence: EvidenceKind, tier: RiskTier): KindRules => ({
  family: 'node-command',
  mutating: true,
  tier,
  evidence,
  nodeLevel: true,
});
const account: KindRules = {
  family: 'account',
  mutating: true,
  tier: 'account',
  evidence: 'account',
  nodeLevel: false,
};
const kube = (evidence: EvidenceKind, nodeLevel = true): KindRules => ({
  family: 'kubernetes',
  mutating: true,
  tier: 'cluster',
  evidence,
  nodeLevel,
});

/** The rules of every kind (a kind added to the request type must be added here: the type says so). */
export const KIND_RULES: Readonly<Record<ActionKind, KindRules>> = {
  'probe-node': { family: 'node-command', mutating: false, tier: 'read-only', evidence: 'none', nodeLevel: false },
  'repair-pause-image': node('node-failing', 'in-place'),
  'collect-logs': node('none', 'in-place'),
  'restart-runtime': node('node-failing', 'disruptive'),
  'attach-managed-policy': account,
  'add-sg-rule': account,
  'create-cidr-reservation': account,
  'create-pull-through-cache': account,
  'use-secondary-ips': { ...account, evidence: 'account' },
  'restart-aws-node': { family: 'cluster', mutating: true, tier: 'cluster', evidence: 'aws-node', nodeLevel: true },
  'enable-windows-ipam': { family: 'cluster', mutating: true, tier: 'cluster', evidence: 'cluster', nodeLevel: false },
  'rollback-deployment': { family: 'cluster', mutating: true, tier: 'cluster', evidence: 'cluster', nodeLevel: false },
  'evict-stuck-pods': kube('node-healthy'),
  'drain-node': kube('node-failing-or-unreachable'),
  cordon: kube('none'),
  uncordon: kube('none'),
  'report-events': {
    family: 'kubernetes',
    mutating: true,
    tier: 'cluster',
    evidence: 'none',
    nodeLevel: false,
    hourlyCap: false,
  },
};

export type Disposition = 'auto' | 'approve' | 'dry-run';

/** Remedies that ask a human whatever the tier and mode: a cluster-wide CNI change, a workload's rollback. */
export const ALWAYS_ASKS: readonly ActionKind[] = ['use-secondary-ips', 'rollback-deployment'];

/** How the configuration lets one kind run for a class (the door recomputes it; it never trusts the plan's). */
export type ConfiguredDisposition =
  | { readonly disposition: Disposition; readonly reason: string }
  | { readonly disposition: 'refuse'; readonly reason: string };

export interface DispositionConfig {
  readonly mode: ClassMode;
  /** The class's remedy tier (account, cluster and Kubernetes actions). @default 'approve' */
  readonly remedyTier?: RemedyTier;
}

/**
 * The disposition the configuration gives an action of `kind` for a class: node commands by their
 * risk tier and the class mode (in-place repairs run in auto mode, disruptive ones always ask);
 * account and cluster remedies and Kubernetes actions by the class's remedy tier (auto only with the
 * class in auto mode; a cluster-wide CNI change and a drain always ask). The node probe always runs.
 */
export function configuredDisposition(kind: ActionKind, c: DispositionConfig): ConfiguredDisposition {
  const rules = KIND_RULES[kind];
  if (!rules.mutating) return { disposition: 'auto', reason: 'a read: no approval needed' };
  // Events say what pod-doctor found and did, in every mode: no approval, the kill switch still stops them.
  if (kind === 'report-events')
    return { disposition: 'auto', reason: 'events only: written without approval, capped per incident' };
  if (c.mode === 'observe') return { disposition: 'refuse', reason: 'the class is in observe mode: recommended only' };
  if (isNodeCommandKind(kind)) {
    if (rules.tier === 'disruptive') return { disposition: 'approve', reason: 'disruptive action: always asks first' };
    return c.mode === 'auto'
      ? { disposition: 'auto', reason: 'in-place action in auto mode' }
      : { disposition: 'approve', reason: 'the class is in approve mode' };
  }
  const tier = c.remedyTier ?? 'approve';
  if (isAccountKind(kind) || isClusterRemedyKind(kind)) {
    if (tier === 'dry-run') return { disposition: 'dry-run', reason: 'remedies of the class run as dry run' };
    if (tier === 'auto' && c.mode === 'auto' && !ALWAYS_ASKS.includes(kind))
      return { disposition: 'auto', reason: 'remedy tier auto and the class in auto mode' };
    return {
      disposition: 'approve',
      reason:
        kind === 'use-secondary-ips'
          ? 'a cluster-wide CNI change always asks first'
          : kind === 'rollback-deployment'
            ? "a rollback changes a tenant's workload: it always asks first"
            : 'account and cluster changes ask first unless tier and mode are auto',
    };
  }
  const d = actionDisposition({ action: kind as KubernetesAction, mode: c.mode, tier, killSwitch: false });
  return d.disposition === 'blocked'
    ? { disposition: 'refuse', reason: d.reason }
    : { disposition: d.disposition, reason: d.reason };
}

const STRICTNESS: Record<Disposition, number> = { auto: 0, approve: 1, 'dry-run': 2 };

/** The stricter of what the plan asked and what the configuration allows (a plan never loosens the configuration). */
export function effectiveDisposition(requested: Disposition, configured: ConfiguredDisposition): ConfiguredDisposition {
  if (configured.disposition === 'refuse') return configured;
  return STRICTNESS[requested] > STRICTNESS[configured.disposition]
    ? { disposition: requested, reason: `the plan asks for ${requested}` }
    : configured;
}

/** Why the door did not run a request: the refusal's code (the summary's wording keys on it) and reason. */
export type RefusalCode =
  | 'policy'
  | 'kill-switch'
  | 'not-approved'
  | 'approval-mismatch'
  | 'cause-gone'
  | 'cannot'
  | 'no-evidence'
  | 'breaker'
  | 'cap'
  | 'cooldown'
  | 'target'
  | 'invalid';

export type GateVerdict =
  | { readonly verdict: 'run'; readonly dryRun: boolean; readonly reason: string }
  | { readonly verdict: 'ask'; readonly reason: string }
  | { readonly verdict: 'probe'; readonly reason: string }
  | { readonly verdict: 'refuse'; readonly code: RefusalCode; readonly reason: string };

export interface GateInput {
  readonly request: Pick<ActionRequest, 'action' | 'incident'>;
  /** The effective disposition ({@link effectiveDisposition}). */
  readonly disposition: ConfiguredDisposition;
  /** The kill switch as read now; unreadable counts as on. */
  readonly killSwitch: { readonly on: boolean; readonly readable: boolean };
  /** This request's digest is approved (the approval endpoint recorded the grant). */
  readonly granted: boolean;
  /** The answer of the approval this pass through the door asked for, if it asked. */
  readonly answer?: { readonly approved: boolean; readonly reason: string };
  /** The cause on the target's own evidence (evidence newer than the approval, when there is one). */
  readonly cause: CauseVerdict;
  /** The door already probed the node for this request (a second stale verdict is a refusal, not a loop). */
  readonly probed: boolean;
  /** Nodes of the node group hit by the class, and its size (node-level actions). */
  readonly breaker?: { readonly affectedNodes: number; readonly nodeGroupSize: number };
  readonly limits: PolicyLimits;
}

const refuse = (code: RefusalCode, reason: string): GateVerdict => ({ verdict: 'refuse', code, reason });

/**
 * The gate: the configuration's disposition, the kill switch (unreadable = on; a read or a dry run
 * changes nothing and passes), the cause on the target's own evidence, the approval of exactly this
 * request, the node group's breaker. Pure; the hourly cap and the cooldowns are reserved after it,
 * atomically, by the door.
 */
export function gate(i: GateInput): GateVerdict {
  const rules = KIND_RULES[i.request.action.kind];
  if (i.disposition.disposition === 'refuse') return refuse('policy', i.disposition.reason);
  const dryRun = i.disposition.disposition === 'dry-run' || isDryRun(i.request.action);
  if (!rules.mutating) return { verdict: 'run', dryRun: false, reason: 'a read' };
  if (i.killSwitch.on && !dryRun)
    return refuse('kill-switch', i.killSwitch.readable ? 'kill switch is on' : 'kill switch unreadable: treated as on');
  if (i.answer && !i.answer.approved) return refuse('not-approved', i.answer.reason);
  const cause = causeVerdict(i);
  if (cause) return cause;
  if (i.disposition.disposition === 'approve' && !i.granted)
    return i.answer
      ? refuse('approval-mismatch', 'the approval given does not cover this exact action and change: nothing done')
      : { verdict: 'ask', reason: i.disposition.reason };
  if (rules.nodeLevel && i.breaker && !dryRun) {
    const why = breakerBlock({ class: i.request.incident.class as FailureClass, ...i.breaker, limits: i.limits });
    if (why) return refuse('breaker', why);
  }
  return { verdict: 'run', dryRun, reason: i.cause.reason };
}

function causeVerdict(i: GateInput): GateVerdict | undefined {
  switch (i.cause.status) {
    case 'holds':
      return undefined;
    case 'gone':
      return refuse('cause-gone', i.cause.reason);
    case 'cannot':
      return refuse('cannot', i.cause.reason);
    case 'unknown':
      return refuse('no-evidence', i.cause.reason);
    case 'stale':
      return i.probed ? refuse('no-evidence', i.cause.reason) : { verdict: 'probe', reason: i.cause.reason };
  }
}

function isDryRun(a: Action): boolean {
  return a.kind === 'evict-stuck-pods' && a.dryRun;
}
