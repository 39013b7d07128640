import { nodeCooldownKey, targetCooldownKey } from '../../core/contract/incident-table.js';
import type { NodeCommandAction, NodeKubernetesAction } from '../../core/door/action-request.js';
import { KIND_RULES } from '../../core/door/gate.js';
import { nodeCause } from '../../core/policy/cause-evidence.js';
import { ClusterWrites } from './cluster-writes.js';
import { drainNode, evictStuckPods } from './evictions.js';
import type { ActOutcome, DoorContext, Prepared } from './executor.js';
import { cordonNode, uncordonNode } from './kubernetes-actions.js';
import { documentOf, sendCommand } from './node-commands.js';
import { getNodeEvidence } from './records.js';
import type { CooldownClaim } from './reservations.js';

/**
 * Actions on one node: the SSM documents (the probe, the pause repair, log collection, the runtime
 * restart) and the Kubernetes actions on it (evict its stuck pods, drain, cordon). Their cause is the
 * node's own probe as the door ran and recorded it, never a log line or a pod.
 */

/** The node's cooldown for the class (and aws-node's on the node, for its restart). */
export function nodeCooldowns(ctx: DoorContext, instanceId: string): CooldownClaim[] {
  const { incident, execution } = ctx.request;
  const minutes = ctx.deps.config.limits.nodeCooldownMinutes;
  const claims: CooldownClaim[] = [
    {
      key: nodeCooldownKey(instanceId, incident.class),
      holder: execution,
      minutes,
      what: `this node for ${incident.class}`,
    },
  ];
  if (ctx.request.action.kind === 'restart-aws-node')
    claims.push({
      key: targetCooldownKey(`aws-node/${instanceId}`),
      holder: execution,
      minutes,
      what: 'aws-node on this node',
    });
  return claims;
}

/** The cause on the node's newest probe the door recorded (taken at or after `since`). */
function causeOnNode(ctx: DoorContext, instanceId: string) {
  const rules = KIND_RULES[ctx.request.action.kind];
  return async (since: number) =>
    nodeCause(
      rules.evidence,
      ctx.request.incident.class,
      await getNodeEvidence(instanceId, { ddb: ctx.deps.ddb, tableName: ctx.deps.config.tableName }),
      since,
    );
}

/** A node command: SendCommand now, the door's poll loop reads the result. */
export function nodeCommand(a: NodeCommandAction, ctx: DoorContext): Prepared {
  const act = async (): Promise<ActOutcome> => {
    const d = documentOf(a, {
      config: ctx.deps.config,
      incidentId: ctx.request.incident.id,
      region: ctx.request.scope.region,
    });
    const sent = await sendCommand(
      a.node.instanceId,
      { ...d, comment: `pod-doctor ${ctx.request.incident.id} ${ctx.request.slot}` },
      { ssm: ctx.deps.ssm, s3: ctx.deps.s3, config: ctx.deps.config },
    );
    if ('status' in sent)
      return {
        result: {
          outcome: a.kind === 'probe-node' ? 'done' : 'failed',
          reason: sent.reason,
          command: {
            status: sent.status,
            ...(sent.error ? { statusDetails: sent.error } : {}),
            excerpt: '',
            stderrExcerpt: sent.reason.slice(0, 1_000),
          },
        },
        changed: false,
      };
    const maxPolls = a.kind === 'probe-node' ? ctx.polls.probe : ctx.polls.action;
    return {
      pending: {
        purpose: 'action',
        commandId: sent.commandId,
        instanceId: a.node.instanceId,
        document: d.document,
        sentAt: new Date(ctx.now).toISOString(),
        polls: 0,
        maxPolls,
      },
    };
  };
  return {
    diff: [],
    cause: causeOnNode(ctx, a.node.instanceId),
    cooldowns: KIND_RULES[a.kind].mutating ? nodeCooldowns(ctx, a.node.instanceId) : [],
    dryRun: act,
    act,
    // Its only call that can throw is SendCommand, first: a throw sent nothing.
    throwsOnlyUnchanged: true,
  };
}

/** A Kubernetes action on the node: evictions, drain, cordon, through the door's writes. */
export function nodeKubernetes(a: NodeKubernetesAction, ctx: DoorContext): Prepared {
  const writes = async () => new ClusterWrites(await ctx.deps.cluster(ctx.request.incident.cluster));
  const run = async (dryRun: boolean): Promise<ActOutcome> => {
    try {
      return await runOn(await writes(), dryRun);
    } catch (e) {
      // No answer from the cluster (no access entry, API down, refused): nothing known to be changed.
      return {
        result: { outcome: 'failed', reason: `${(e as Error).name}: ${(e as Error).message}`.slice(0, 1_000) },
        changed: false,
      };
    }
  };
  const runOn = async (w: ClusterWrites, dryRun: boolean): Promise<ActOutcome> => {
    if (a.kind === 'evict-stuck-pods') {
      // The eviction's start is the API server's time, not the workflow's: the replacements' creation
      // times are compared with it.
      const evictions = await evictStuckPods(w, a.node.name, a.pods, { dryRun });
      return {
        result: { outcome: dryRun ? 'dry-run' : 'done', reason: 'evictions through the Eviction API', evictions },
        changed: !dryRun && evictions.evicted.length > 0,
      };
    }
    if (a.kind === 'drain-node') {
      const drain = await drainNode(w, a.node.name, { ...ctx.deps.wait, skipIfCordoned: true });
      return {
        result: { outcome: 'done', reason: 'drained through the Eviction API', drain },
        changed: !drain.leftToOthers,
      };
    }
    const cordon = a.kind === 'cordon' ? await cordonNode(w, a.node.name) : await uncordonNode(w, a.node.name);
    return {
      result: { outcome: 'done', reason: `${a.kind}: ${cordon.changed ? 'changed' : 'already so'}` },
      changed: cordon.changed,
    };
  };
  return {
    diff: a.kind === 'evict-stuck-pods' ? a.pods.map((p) => `evict ${p.namespace}/${p.name} if still stuck`) : [],
    cause: causeOnNode(ctx, a.node.instanceId),
    cooldowns: nodeCooldowns(ctx, a.node.instanceId),
    dryRun: () => run(true),
    act: () => run(false),
  };
}
