import type { ClassMode, FailureClass } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';
import { isAdvisory } from '../policy/policy.js';
import type { RemedyId, RemedyTier } from './apply-path.js';
import { type KubernetesRemedyTarget, kubernetesRemedyTarget } from './kubernetes-paths.js';
import { rollbackByHand } from './rollout.js';
import { type RolloutRollbackTargetSpec, rolloutRemedyTarget } from './rollout-rollback.js';
import { type RemediationScope, type RemedyNode, type RemedyTarget, remedyTarget } from './targets.js';

/** What happens to the incident's remedy. */
export type RemedyDisposition = 'auto' | 'approve' | 'dry-run' | 'blocked';

/** Account remedies run in the remedy function; cluster remedies in the Kubernetes function. */
export type AnyRemedyTarget = RemedyTarget | KubernetesRemedyTarget | RolloutRollbackTargetSpec;
/** Remedies run through a cluster's Kubernetes API. */
type ClusterTarget = KubernetesRemedyTarget | RolloutRollbackTargetSpec;

export interface PlannedRemedy {
  readonly id: RemedyId;
  readonly target: AnyRemedyTarget;
  readonly disposition: RemedyDisposition;
  /** Why this disposition. */
  readonly reason: string;
  /**
   * The remedy that runs once this one is verified (or no longer needed), under its own disposition:
   * `cni-permissions` restarts aws-node on the node after AmazonEKS_CNI_Policy is attached.
   */
  readonly followUp?: PlannedRemedy;
}

export interface RemedyPlanInput {
  readonly class: FailureClass;
  readonly mode: ClassMode;
  /** The class's remedy tier from the configuration (absent: approve). */
  readonly tier?: RemedyTier;
  readonly killSwitch: boolean;
  readonly clusterOptedIn: boolean;
  /** The stack can reach the cluster's Kubernetes API (it has the Kubernetes function). @default false */
  readonly clusterAccess?: boolean;
  readonly findings: readonly Finding[];
  /** The node as the workflow resolved it from EC2: its private DNS name is its Kubernetes name. */
  readonly node?: RemedyNode & { readonly privateDnsName?: string };
  readonly scope: RemediationScope;
  readonly incidentId: string;
  /** The incident's cluster. */
  readonly cluster?: string;
  /** The cluster's node roles (deployment configuration). */
  readonly nodeRoleArns?: readonly string[];
  /** Image references of the incident (reported only). */
  readonly images?: readonly string[];
  /** The cluster security group EKS created (DescribeCluster). */
  readonly clusterSecurityGroupId?: string;
}

export interface RemedyPlan {
  readonly remedy?: PlannedRemedy;
  readonly reason: string;
  /** A cluster remedy pod-doctor cannot run (no cluster access): what a human should do instead. */
  readonly recommend?: string;
}

/** What a cluster remedy changes, for a human who has to do it by hand. */
function byHand(t: ClusterTarget): string {
  if (t.kind === 'rollback-deployment') return rollbackByHand(t);
  return t.kind === 'restart-aws-node'
    ? `restart aws-node on node ${t.nodeName} (kubectl -n kube-system delete pod -l k8s-app=aws-node --field-selector spec.nodeName=${t.nodeName})`
    : 'set enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni';
}

const noAccess = (t: ClusterTarget) =>
  `recommend: no cluster access (no Kubernetes function, or the cluster has kubernetesApi: false): ${byHand(t)}`;

interface Targets {
  readonly target?: AnyRemedyTarget;
  readonly followUp?: KubernetesRemedyTarget;
  readonly reason?: string;
  readonly recommend?: string;
}

/**
 * The targets of the incident's class: the cluster remedy (ipamd, Windows IPAM), the account
 * remedy, or for CNI permissions both in order. Node names come from the resolved node only.
 */
function targetsOf(i: RemedyPlanInput): Targets {
  const cluster = kubernetesRemedyTarget({ class: i.class, nodeName: i.node?.privateDnsName });
  if (i.class === 'cni-permissions') {
    const account = remedyTarget(i);
    if (!account.target) return { reason: account.reason };
    if (!cluster.target) return { target: account.target, reason: cluster.reason };
    return i.clusterAccess
      ? { target: account.target, followUp: cluster.target, reason: cluster.reason }
      : { target: account.target, reason: noAccess(cluster.target), recommend: noAccess(cluster.target) };
  }
  if (cluster.target)
    return i.clusterAccess
      ? { target: cluster.target, reason: cluster.reason }
      : { reason: noAccess(cluster.target), recommend: noAccess(cluster.target) };
  if (i.class === 'ipamd-unavailable' || i.class === 'windows-ipam') return { reason: cluster.reason };
  const account = remedyTarget(i);
  if (account.target) return account;
  // The pull failure started with a rollout (k8s.rollout, from the owner chain): the previous revision.
  const rollout = rolloutRemedyTarget(i.findings);
  if (rollout.recommend) return { reason: rollout.recommend, recommend: rollout.recommend };
  if (rollout.target)
    return i.clusterAccess
      ? { target: rollout.target, reason: 'the rollout is the cause: back to the revision whose pods ran' }
      : { reason: noAccess(rollout.target), recommend: noAccess(rollout.target) };
  return account;
}

/** The disposition every remedy of the incident gets (tier, mode, kill switch, opt-in, fail closed). */
function dispositionOf(i: RemedyPlanInput, id: RemedyId): { disposition: RemedyDisposition; reason: string } {
  // A cluster-wide CNI change asks a human, whatever the configuration says.
  const alwaysAsks = id === 'use-secondary-ips' || id === 'rollback-deployment';
  const tier = alwaysAsks && i.tier === 'auto' ? 'approve' : (i.tier ?? 'approve');
  const errors = i.findings.filter((f) => f.status === 'error' && !isAdvisory(f.id)).map((f) => f.id);
  const blocked = (reason: string) => ({ disposition: 'blocked' as const, reason });
  if (i.killSwitch) return blocked('kill switch is on');
  if (!i.clusterOptedIn) return blocked('cluster is not configured for pod-doctor');
  if (errors.length) return blocked(`fail closed: check(s) could not run: ${errors.join(', ')}`);
  if (tier === 'dry-run')
    return { disposition: 'dry-run', reason: `remedies of ${i.class} run as dry run (configuration)` };
  if (tier === 'auto' && i.mode === 'auto')
    return {
      disposition: 'auto',
      reason: `remedies of ${i.class} are auto (configuration) and the class is in auto mode`,
    };
  return {
    disposition: 'approve',
    reason:
      id === 'use-secondary-ips'
        ? 'use-secondary-ips changes the CNI of every node of the cluster: it always asks first'
        : id === 'rollback-deployment'
          ? "a rollback changes a tenant's workload: it always asks first"
          : tier === 'auto'
            ? `class ${i.class} is in approve mode: the change asks first`
            : 'account and cluster changes ask first (default tier approve)',
  };
}

/**
 * The incident's remedy (account or cluster), with its follow-up, or why there is none (observe
 * mode, no target, out of scope, no cluster access).
 */
export function planRemedy(i: RemedyPlanInput): RemedyPlan {
  if (i.mode === 'observe') {
    const rollout = rolloutRemedyTarget(i.findings);
    const recommend = rollout.recommend ?? (rollout.target ? `recommend: ${byHand(rollout.target)}` : undefined);
    return {
      reason: `class ${i.class} is in observe mode: changes are recommended`,
      ...(recommend ? { recommend } : {}),
    };
  }
  const t = targetsOf(i);
  const extra = t.recommend ? { recommend: t.recommend } : {};
  if (!t.target) return { reason: t.reason ?? 'no remedy', ...extra };
  const d = dispositionOf(i, t.target.kind);
  const planned = (target: AnyRemedyTarget): PlannedRemedy => ({ id: target.kind, target, ...d });
  const remedy: PlannedRemedy = {
    ...planned(t.target),
    ...(t.followUp && d.disposition !== 'blocked' ? { followUp: planned(t.followUp) } : {}),
  };
  return { remedy, reason: d.reason, ...extra };
}
