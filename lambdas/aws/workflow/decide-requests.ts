import type { Action, PlannedRequest, Slot } from '../../core/door/action-request.js';
import type { DrainPlan } from '../../core/door/drain.js';
import type { EvictPlan } from '../../core/door/evict-after-repair.js';
import type { NodeTrust } from '../../core/policy/node-trust.js';
import type { Plan, PlannedAction } from '../../core/policy/policy.js';
import type { AnyRemedyTarget, PlannedRemedy } from '../../core/remedy/plan.js';
import type { DecideInput } from './decide-inputs.js';

/** What Decide planned, for the requests it hands the door. */
export interface PlannedParts {
  readonly input: DecideInput;
  readonly plan: Plan;
  readonly actions: readonly PlannedAction[];
  readonly trust: NodeTrust;
  readonly remedy: PlannedRemedy | null;
  readonly drain?: DrainPlan;
  readonly evict?: EvictPlan;
}

type Node = { readonly instanceId: string; readonly name?: string };

/** A planned node action as the door's request (the image is the node's own configured one). */
function nodeActionOf(a: PlannedAction, node: Node, image: string | undefined): Action | undefined {
  if (a.id === 'repair-pause-image') return image ? { kind: a.id, node, image } : undefined;
  if (a.id === 'collect-logs') return { kind: a.id, node };
  if (a.id === 'restart-runtime') return { kind: a.id, node, target: 'both' };
  return undefined;
}

/** A planned remedy's target as the door's request (the node as EC2 named it). */
function remedyActionOf(t: AnyRemedyTarget, node: Node | undefined): Action | undefined {
  if (t.kind === 'restart-aws-node')
    return node ? { kind: t.kind, node: { instanceId: node.instanceId, name: t.nodeName } } : undefined;
  if (t.kind === 'enable-windows-ipam') return { kind: t.kind };
  if (t.kind === 'rollback-deployment')
    return {
      kind: t.kind,
      namespace: t.namespace,
      deployment: t.deployment,
      fromRevision: t.fromRevision,
      toRevision: t.toRevision,
    };
  const on = node ? { node: { instanceId: node.instanceId } } : {};
  if (t.kind === 'create-pull-through-cache') return { ...t, nodeRoleArns: t.nodeRoleArns ?? [], ...on };
  return { ...t, ...on };
}

const runs = (d: string): d is PlannedRequest['disposition'] => d === 'auto' || d === 'approve' || d === 'dry-run';

function request(action: Action | undefined, disposition: string, description: string, reason: string) {
  return action && runs(disposition) ? { action, disposition, description, reason } : undefined;
}

/**
 * What the door is asked to run, by slot: the node action and its follow-up, the remedy and its
 * follow-up, the eviction after a repair, the drain after a failed restart. Each names its target by
 * the identifiers Resolve node and the inspection read from EC2 and the Kubernetes API.
 */
export function requestsOf(p: PlannedParts): Partial<Record<Slot, PlannedRequest>> {
  const { input, trust } = p;
  const name = input.node?.privateDnsName;
  const node: Node | undefined = trust.instanceId
    ? { instanceId: trust.instanceId, ...(name ? { name } : {}) }
    : undefined;
  const describe = (id: string, fallback: string) => p.actions.find((a) => a.id === id)?.description ?? fallback;
  const out: Partial<Record<Slot, PlannedRequest>> = {};
  const nodePart = (a: PlannedAction | undefined) =>
    a && node ? request(nodeActionOf(a, node, trust.sandboxImage), a.disposition, a.description, a.reason) : undefined;
  const remedyPart = (r: PlannedRemedy | undefined) =>
    r ? request(remedyActionOf(r.target, node), r.disposition, describe(r.id, r.id), r.reason) : undefined;
  const set = (slot: Slot, r: PlannedRequest | undefined) => {
    if (r) out[slot] = r;
  };
  set('act', nodePart(p.plan.nodeAction));
  set('followUp', nodePart(p.plan.followUp));
  set('remedy', remedyPart(p.remedy ?? undefined));
  set('remedyFollowUp', remedyPart(p.remedy?.followUp));
  const named = node?.name ? { instanceId: node.instanceId, name: node.name } : undefined;
  if (named && p.evict) {
    const pods = (input.diagnosis?.kubernetes.stuckPods ?? []).map((x) => ({ namespace: x.namespace, name: x.name }));
    const action: Action = { kind: 'evict-stuck-pods', node: named, pods, dryRun: p.evict.disposition === 'dry-run' };
    set('evict', request(action, p.evict.disposition, p.evict.description, p.evict.reason));
  }
  if (named && p.drain) {
    // Who replaces the node is part of what the approver approves.
    const description = `${p.drain.description}; ${p.drain.replacement.text}`;
    set('drain', request({ kind: 'drain-node', node: named }, p.drain.disposition, description, p.drain.reason));
  }
  return out;
}
