import type { FailureClass } from './failure-classes.js';
import type { Finding } from './findings.js';
import { failingOnNode, healthyNode, probeShowsClass } from './node-signs.js';
import { breakerBlock, cooldownBlock, type PolicyLimits } from './policy.js';

/** What the gate right before Act has re-read (the hourly cap is reserved after these pass). */
export interface GateFacts {
  readonly class: FailureClass;
  /** The node action about to run. */
  readonly action: string;
  /** The kill switch as read now; unreadable counts as on. */
  readonly killSwitch: boolean;
  readonly killSwitchReadable: boolean;
  readonly limits: PolicyLimits;
  /** When pod-doctor last acted on this instance for this class, by another execution (epoch ms). */
  readonly lastNodeActionAt?: number;
  /** Nodes of the cluster with an open incident of this class now, and the node group size. */
  readonly affectedNodes: number;
  readonly nodeGroupSize: number;
  /**
   * The newest probe of the node (the re-check after an approval, else the diagnosis probe): its
   * findings, or why there are none.
   */
  readonly probe: { readonly findings: readonly Finding[] } | { readonly notRun: string };
  readonly now: number;
}

/**
 * The gate right before Act: kill switch, cooldown, breaker and whether the node still fails,
 * re-read now rather than trusted from when the incident opened (an approval can wait an hour).
 * Returns why the action must not run, or undefined. Pure.
 */
export function gateBlock(f: GateFacts): string | undefined {
  if (f.killSwitch) return f.killSwitchReadable ? 'kill switch is on' : 'kill switch unreadable: treated as on';
  return (
    cooldownBlock({ class: f.class, lastNodeActionAt: f.lastNodeActionAt, limits: f.limits, now: f.now }) ??
    breakerBlock({
      class: f.class,
      affectedNodes: f.affectedNodes,
      nodeGroupSize: f.nodeGroupSize,
      limits: f.limits,
    }) ??
    stillFailingBlock(f)
  );
}

/** Actions that only read the node (evidence): they need no proof that the node still fails. */
const READ_ONLY_ACTIONS: ReadonlySet<string> = new Set(['collect-logs']);

/**
 * Actions through the Kubernetes API, not the node: a node SSM can no longer reach is no sign that
 * it healed, so a probe that could not run does not stop them (a clean probe does).
 */
const CLUSTER_SIDE_ACTIONS: ReadonlySet<string> = new Set(['drain-node']);

/**
 * Actions that finish a verified repair (evicting pods that stay stuck): they need the opposite
 * proof, a node that is healthy now; on a node that fails again the re-created pods fail the same way.
 */
const AFTER_REPAIR_ACTIONS: ReadonlySet<string> = new Set(['evict-stuck-pods']);

function healthyNodeBlock(f: GateFacts): string | undefined {
  if ('notRun' in f.probe) return `cannot tell whether the repaired node is healthy: ${f.probe.notRun}`;
  const bad = failingOnNode(f.class, f.probe.findings);
  if (bad.length)
    return `the node fails again (${bad.map((x) => x.id).join(', ')}): re-created pods would fail the same way`;
  return undefined;
}

/**
 * Whether the node still shows the class's failure, before an action that changes the node (only
 * for classes the probe can see): a node that healed meanwhile is not repaired, restarted or drained.
 */
function stillFailingBlock(f: GateFacts): string | undefined {
  if (AFTER_REPAIR_ACTIONS.has(f.action)) return healthyNodeBlock(f);
  if (READ_ONLY_ACTIONS.has(f.action) || !probeShowsClass(f.class)) return undefined;
  if ('notRun' in f.probe)
    return CLUSTER_SIDE_ACTIONS.has(f.action)
      ? undefined
      : `cannot tell whether the node still fails: ${f.probe.notRun}`;
  if (failingOnNode(f.class, f.probe.findings).length === 0) return `the node no longer fails: ${healthyNode(f.class)}`;
  return undefined;
}
