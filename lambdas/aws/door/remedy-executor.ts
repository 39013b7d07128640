import { targetCooldownKey } from '../../core/contract/incident-table.js';
import { isClusterRemedyKind, type RemedyAction } from '../../core/door/action-request.js';
import { applyPathCause } from '../../core/policy/cause-evidence.js';
import {
  type ApplyPath,
  type ApplyRecord,
  applyPrepared,
  preparePath,
  unchangedRecord,
} from '../../core/remedy/apply-path.js';
import { awsNodeRestartPath, windowsIpamPath } from '../../core/remedy/kubernetes-paths.js';
import { rolloutRollbackPath } from '../../core/remedy/rollout-rollback.js';
import { awsNodeRestartPort, windowsIpamPort } from './cluster-ports.js';
import { ClusterWrites } from './cluster-writes.js';
import {
  type ActOutcome,
  type DoorContext,
  type Prepared,
  type PrepareFailure,
  RemedyTargetError,
} from './executor.js';
import { nodeCooldowns } from './node-executor.js';
import { ledgerOf } from './records.js';
import type { CooldownClaim } from './reservations.js';
import { rolloutPort } from './rollout-port.js';

/**
 * Account and cluster remedies: the apply-path discipline (re-check on the target's own state,
 * smallest change, diff, verify, roll back) with ports that may write, only here. The diff the door
 * computes is what an approval covers; after an approval the door computes it again, and a diff that
 * changed meanwhile is another request.
 */

/** The resource a remedy changes, as its cooldown key. */
function targetOf(a: RemedyAction, ctx: DoorContext): string {
  const { cluster } = ctx.request.incident;
  switch (a.kind) {
    case 'attach-managed-policy':
      return `role/${a.roleName}`;
    case 'add-sg-rule':
      return `security-group/${a.groupId}`;
    case 'create-cidr-reservation':
      return `subnet/${a.subnetId}`;
    case 'create-pull-through-cache':
      return `ecr-pull-through-cache/${ctx.request.scope.region}/${a.ecrRepositoryPrefix}`;
    case 'use-secondary-ips':
      return `addon/${cluster}/vpc-cni`;
    case 'enable-windows-ipam':
      return `configmap/${cluster}/kube-system/amazon-vpc-cni`;
    case 'restart-aws-node':
      return `aws-node/${a.node.instanceId}`;
    case 'rollback-deployment':
      return `deployment/${cluster}/${a.namespace}/${a.deployment}`;
  }
}

function cooldownsOf(a: RemedyAction, ctx: DoorContext): CooldownClaim[] {
  if (a.kind === 'restart-aws-node') return nodeCooldowns(ctx, a.node.instanceId);
  return [
    {
      key: targetCooldownKey(targetOf(a, ctx)),
      holder: ctx.request.execution,
      minutes: ctx.deps.config.limits.nodeCooldownMinutes,
      what: targetOf(a, ctx),
    },
  ];
}

/** AmazonEKS_CNI_Policy was attached (and verified, or already there) by this execution's door: the ledger says so. */
async function cniPolicyAttached(ctx: DoorContext): Promise<boolean> {
  const rows = await ledgerOf(ctx.request.execution, { ddb: ctx.deps.ddb, tableName: ctx.deps.config.tableName });
  return rows.some(
    (r) =>
      r.kind === 'attach-managed-policy' &&
      (r.status === 'verified' || r.status === 'not-needed') &&
      /\/AmazonEKS_CNI_Policy /.test(`${r.line} `),
  );
}

/** The apply path of a remedy, its ports bound to the door's clients. */
async function pathOf(a: RemedyAction, ctx: DoorContext): Promise<ApplyPath<unknown>> {
  const { cluster, class: failureClass } = ctx.request.incident;
  if (a.kind === 'rollback-deployment')
    return rolloutRollbackPath(
      { ...a, kind: 'rollback-deployment' },
      rolloutPort(await ctx.deps.cluster(cluster), a, ctx.deps.wait),
      { failureClass },
    ) as ApplyPath<unknown>;
  if (a.kind === 'restart-aws-node' || a.kind === 'enable-windows-ipam') {
    const w = new ClusterWrites(await ctx.deps.cluster(cluster));
    if (a.kind === 'enable-windows-ipam') return windowsIpamPath(windowsIpamPort(w)) as ApplyPath<unknown>;
    return awsNodeRestartPath(
      { kind: 'restart-aws-node', nodeName: a.node.name },
      awsNodeRestartPort(w, ctx.deps.wait),
      { failureClass, cniPolicyAttached: await cniPolicyAttached(ctx) },
    ) as ApplyPath<unknown>;
  }
  if (!ctx.deps.accountRemedies)
    throw new RemedyTargetError(
      `${a.kind}: no cluster has a remediation scope, so this door has no account remedies (configure clusters[].remediation)`,
    );
  return ctx.deps.accountRemedies.path(a, {
    cluster,
    region: ctx.request.scope.region,
    node: ctx.node,
    config: ctx.deps.config,
  });
}

const outcomeOf = (r: ApplyRecord): 'done' | 'failed' => (r.status === 'failed' ? 'failed' : 'done');

/** The cluster cannot be reached (no access entry, API down): the remedy's failed record, nothing changed. */
function unreachable(a: RemedyAction, e: unknown, now: () => number): PrepareFailure {
  const at = new Date(now()).toISOString();
  const reason = `the cluster's API did not answer (${(e as Error).name}: ${(e as Error).message})`;
  return {
    failed: {
      reason,
      record: {
        remedy: a.kind,
        change: a.kind,
        status: 'failed',
        reason,
        diff: [],
        before: [],
        after: [],
        applied: null,
        verification: null,
        startedAt: at,
        finishedAt: at,
      },
    },
  };
}

/** A remedy, prepared: its diff, its cause as the re-read state shows it, the change and its rollback. */
export async function remedy(a: RemedyAction, ctx: DoorContext): Promise<Prepared | PrepareFailure> {
  const now = () => ctx.deps.now();
  let path: ApplyPath<unknown>;
  try {
    path = await pathOf(a, ctx);
  } catch (e) {
    if (isClusterRemedyKind(a.kind)) return unreachable(a, e, now);
    throw e;
  }
  const r = await preparePath(path, now);
  if ('failed' in r) return { failed: { record: r.failed, reason: r.failed.reason } };
  const p = r.prepared;
  const unchanged = unchangedRecord(path, p, now);
  return {
    diff: p.diff,
    cause: async () => applyPathCause(p.cause),
    cooldowns: cooldownsOf(a, ctx),
    refused: { record: unchanged },
    dryRun: async (): Promise<ActOutcome> => ({
      result: { outcome: 'dry-run', reason: unchanged.reason, record: unchanged },
      changed: false,
    }),
    async act(rollback): Promise<ActOutcome> {
      const record = await applyPrepared(path, p, { now, mayRollBack: rollback });
      return {
        result: { outcome: outcomeOf(record), reason: record.reason, record },
        changed: record.applied !== null,
      };
    },
  };
}
