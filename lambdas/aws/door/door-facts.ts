import { DescribeNodegroupCommand } from '@aws-sdk/client-eks';
import { actionLine, requestDigest } from '../../core/door/action-request.js';
import { countAffectedNodes, readKillSwitch } from '../runtime/safety-reads.js';
import type { DoorContext, DoorDeps, RollbackGate } from './executor.js';
import { writeLedger } from './records.js';

/** The kill switch as the parameter says now (unreadable = on). */
export async function killSwitchOf(deps: DoorDeps): Promise<{ on: boolean; readable: boolean }> {
  const ks = await readKillSwitch(deps.ssm, deps.config.killSwitchParameterName);
  return { on: ks.killSwitch, readable: ks.readable };
}

/**
 * The breaker's facts for a node-level action: nodes of the cluster hit by the class in the
 * incident window, and the size of the node's managed node group as EKS says (0: the node is in
 * no managed node group, the breaker is not evaluated). A node group EKS cannot describe stops the
 * action (fail closed).
 */
export async function breakerOf(ctx: DoorContext): Promise<{ affectedNodes: number; nodeGroupSize: number }> {
  const { deps, request, now } = ctx;
  const affectedNodes = await countAffectedNodes(deps.ddb, {
    tableName: deps.config.tableName,
    cluster: request.incident.cluster,
    class: request.incident.class,
    since: now - deps.config.limits.incidentWindowMinutes * 60_000,
  });
  const nodegroupName = ctx.node?.nodegroupName;
  if (!nodegroupName) return { affectedNodes, nodeGroupSize: 0 };
  const ng = await deps.aws.eks.send(
    new DescribeNodegroupCommand({ clusterName: request.incident.cluster, nodegroupName }),
  );
  return { affectedNodes, nodeGroupSize: ng.nodegroup?.scalingConfig?.desiredSize ?? 0 };
}

/**
 * The gate of a rollback: it undoes exactly the change this request made (it holds that change's
 * cap slot and cooldowns already), so it needs no approval and no new reservation, but the kill
 * switch, read again, stops it like any change. Each rollback is a row of the ledger.
 */
export function rollbackGate(ctx: DoorContext): RollbackGate {
  return async () => {
    const now = ctx.deps.now();
    const ks = await killSwitchOf(ctx.deps);
    const refused = ks.on ? (ks.readable ? 'kill switch is on' : 'kill switch unreadable: treated as on') : undefined;
    const { request } = ctx;
    await writeLedger(
      {
        slot: request.slot,
        kind: request.action.kind,
        line: `roll back: ${actionLine(request.action)}`,
        digest: requestDigest(request),
        outcome: refused ? 'refused' : 'done',
        ...(refused ? { code: 'kill-switch' } : {}),
        reason: refused ?? 'verification failed: the change is rolled back',
        at: new Date(now).toISOString(),
      },
      {
        execution: request.execution,
        at: now,
        cluster: request.incident.cluster,
        retentionDays: ctx.deps.config.historyRetentionDays,
      },
      { ddb: ctx.deps.ddb, tableName: ctx.deps.config.tableName },
    );
    return refused;
  };
}
