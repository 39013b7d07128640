import { DescribeClusterCommand, DescribeNodegroupCommand, type EKSClient } from '@aws-sdk/client-eks';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Finding } from '../../core/contract/findings.js';
import { nodeCooldownKey } from '../../core/contract/incident-table.js';
import { askFirst } from '../../core/door/agent-request.js';
import { planDrain } from '../../core/door/drain.js';
import { planEviction } from '../../core/door/evict-after-repair.js';
import { nodeTrust } from '../../core/policy/node-trust.js';
import { decide, type Plan } from '../../core/policy/policy.js';
import { type PlannedRemedy, planRemedy } from '../../core/remedy/plan.js';
import type { PlanOutput } from '../../core/workflow/execution-state.js';
import type { WorkflowConfig } from '../../core/workflow/workflow-config.js';
import { markAndCountAffected } from '../runtime/safety-reads.js';
import { type DecideInput, diagnosisFindings, probeOf } from './decide-inputs.js';
import { requestsOf } from './decide-requests.js';

export { type DecideInput, decideEventSchema } from './decide-inputs.js';

export interface DecideDeps {
  readonly eks: EKSClient;
  /** Reads the cooldown of the resolved instance, marks it for the breaker. */
  readonly ddb: DynamoDBDocumentClient;
  readonly config: WorkflowConfig;
  readonly now: () => number;
}

/**
 * When pod-doctor last acted on this instance for this class. The door writes the cooldown under the
 * resolved instance id; the incident may have named the node by DNS name, so read it by id here.
 */
async function lastActionOn(instanceId: string | undefined, input: DecideInput, deps: DecideDeps) {
  const opened = input.open.history.lastNodeActionAt ?? undefined;
  if (!instanceId) return opened;
  const r = await deps.ddb.send(
    new GetCommand({ TableName: deps.config.tableName, Key: nodeCooldownKey(instanceId, input.class) }),
  );
  const at = typeof r.Item?.at === 'number' && r.Item.at > 0 ? r.Item.at : undefined;
  return at === undefined ? opened : Math.max(at, opened ?? 0);
}

/** Nodes of the cluster hit by the class in the incident window, this resolved instance included. */
async function affectedNodes(instanceId: string | undefined, input: DecideInput, deps: DecideDeps): Promise<number> {
  if (!instanceId) return 0;
  return markAndCountAffected(deps.ddb, {
    tableName: deps.config.tableName,
    cluster: input.cluster,
    class: input.class,
    instanceId,
    now: deps.now(),
    windowMs: deps.config.limits.incidentWindowMinutes * 60_000,
  });
}

/** What the approver reads of an agent's request: who asked, when, and its note (the agent's words, quoted). */
function agentReason(r: DecideInput['agentRequest']): string[] {
  return r
    ? [`requested by an agent through MCP at ${r.at}: every change asks first; its note: ${JSON.stringify(r.note)}`]
    : [];
}

/**
 * Decide: the diagnosis's findings, the trusted node facts, the policy, the remedy; then what the
 * door is asked to run. A run an agent asked for (`agentRequest`) decides under {@link askFirst}:
 * every change asks a human.
 */
export async function decideIncident(input: DecideInput, given: DecideDeps): Promise<PlanOutput> {
  const deps = input.agentRequest ? { ...given, config: askFirst(given.config, input.class) } : given;
  const probe = probeOf(input.door);
  const findings = diagnosisFindings(input.diagnosis, probe);
  const trust = nodeTrust({
    class: input.class,
    cluster: input.cluster,
    loggedImage: input.entities.sandboxImage,
    node: input.node,
    resolveError: input.resolveError?.Cause,
    probe,
    findings,
    trustedSandboxImages: deps.config.trustedSandboxImages ?? [],
  });
  const reasons: string[] = [...trust.reasons, ...agentReason(input.agentRequest)];
  const nodeGroup = await nodeGroupOf(input, deps);
  if (nodeGroup.finding) findings.push(nodeGroup.finding);
  if (nodeGroup.reason) reasons.push(nodeGroup.reason);
  const plan = await policyPlan(input, deps, { trust, findings, nodeGroupSize: nodeGroup.size });
  if (!input.open.gate.killSwitchReadable) reasons.push('kill switch parameter unreadable: treated as on');
  const { remedy, recommend } = await remedyOf(input, deps, findings);
  if (remedy?.disposition === 'blocked') reasons.push(`${remedy.id}: ${remedy.reason}`);
  if (recommend) reasons.push(recommend);
  const drain = planDrain({
    mode: deps.config.modes[input.class],
    killSwitch: input.open.gate.killSwitch,
    restart: plan.actions.find((a) => a.id === 'restart-runtime')?.disposition,
    instanceId: trust.instanceId,
    nodegroupName: input.node?.nodegroupName,
    nodeAutoRepair: nodeGroup.autoRepair,
    findings,
  });
  const evict = planEviction({
    mode: deps.config.modes[input.class],
    tier: deps.config.remedies[input.class],
    killSwitch: input.open.gate.killSwitch,
    clusterOptedIn: input.open.gate.optedIn,
    nodeAction: plan.nodeAction?.id,
    findings,
  });
  const actions = withRemedyDispositions(plan.actions, remedy, recommend);
  return {
    decision: plan.decision,
    actions,
    reasons: [...plan.reasons, ...reasons],
    recommendations: recommend ? [recommend, ...plan.recommendations] : plan.recommendations,
    findings,
    requests: requestsOf({ input, plan, actions, trust, remedy, drain, evict }),
    drain: drain ?? null,
    evict: evict ?? null,
  };
}

/** What the breaker and the drain need from the node's managed node group. */
interface NodeGroupFacts {
  /** Desired size (0: unknown or no managed node group). */
  readonly size: number;
  /** Whether EKS node auto repair replaces the node (unknown without a managed node group). */
  readonly autoRepair?: boolean;
  /** The error finding when the node group could not be read. */
  readonly finding?: Finding;
  /** Why the breaker is not evaluated (a node outside any managed node group). */
  readonly reason?: string;
}

/** The node group's size and auto-repair setting from DescribeNodegroup. */
async function nodeGroupOf(input: DecideInput, deps: DecideDeps): Promise<NodeGroupFacts> {
  if (!input.node?.nodegroupName) {
    return input.node?.instanceId
      ? { size: 0, reason: 'breaker not evaluated: the node is not in a managed node group' }
      : { size: 0 };
  }
  try {
    const ng = await deps.eks.send(
      new DescribeNodegroupCommand({ clusterName: input.cluster, nodegroupName: input.node.nodegroupName }),
    );
    return {
      size: ng.nodegroup?.scalingConfig?.desiredSize ?? 0,
      // Node auto repair is off unless nodeRepairConfig.enabled says otherwise (EKS API reference).
      autoRepair: ng.nodegroup?.nodeRepairConfig?.enabled === true,
    };
  } catch (e) {
    return {
      size: 0,
      finding: {
        id: 'eks.nodegroup-size',
        status: 'error',
        summary: `node group size unknown: ${(e as Error).name}`,
        evidence: {},
        remediation: null,
      },
    };
  }
}

/** The safety policy over the findings, the trusted node facts and the incident history (cooldown, breaker). */
async function policyPlan(
  input: DecideInput,
  deps: DecideDeps,
  d: { trust: ReturnType<typeof nodeTrust>; findings: Finding[]; nodeGroupSize: number },
): Promise<Plan> {
  const { trust } = d;
  return decide({
    class: input.class,
    mode: deps.config.modes[input.class],
    killSwitch: input.open.gate.killSwitch,
    clusterOptedIn: input.open.gate.optedIn,
    instanceId: trust.instanceId,
    sandboxImage: trust.sandboxImage,
    repairRefusal: trust.repairRefusal,
    findings: d.findings,
    limits: deps.config.limits,
    nodeActionsLastHour: input.open.history.nodeActionsLastHour,
    lastNodeActionAt: await lastActionOn(trust.instanceId, input, deps),
    affectedNodes: await affectedNodes(trust.instanceId, input, deps),
    nodeGroupSize: d.nodeGroupSize,
    now: deps.now(),
  });
}

/** The planned actions with the remedy plan's dispositions (the remedy and its follow-up). */
function withRemedyDispositions(
  actions: Plan['actions'],
  remedy: PlannedRemedy | null,
  recommend: string | undefined,
): Plan['actions'] {
  const planned = [remedy, remedy?.followUp].filter((r): r is PlannedRemedy => !!r && r.disposition !== 'blocked');
  return actions.map((x) => {
    const r = planned.find((p) => p.id === x.id);
    if (r) return { ...x, disposition: r.disposition === 'dry-run' ? 'recommend' : r.disposition, reason: r.reason };
    return recommend && x.tier === 'cluster' ? { ...x, reason: recommend } : x;
  });
}

/** The cluster security group EKS created, for add-sg-rule's source (undefined: unknown). */
async function clusterSecurityGroup(cluster: string, deps: DecideDeps): Promise<string | undefined> {
  try {
    const c = await deps.eks.send(new DescribeClusterCommand({ name: cluster }));
    return c.cluster?.resourcesVpcConfig?.clusterSecurityGroupId;
  } catch {
    return undefined;
  }
}

/** The incident's remedy within the cluster's configured scope (pure planning, see core/remedy/plan). */
async function remedyOf(
  input: DecideInput,
  deps: DecideDeps,
  findings: readonly Finding[],
): Promise<{ remedy: PlannedRemedy | null; recommend?: string }> {
  const cluster = deps.config.clusters.find((c) => c.name === input.cluster);
  if (!cluster) return { remedy: null };
  const sgSource =
    input.class === 'registry-unreachable' && cluster.remediation.endpointSecurityGroups.length > 0
      ? await clusterSecurityGroup(input.cluster, deps)
      : undefined;
  const { remedy, recommend } = planRemedy({
    class: input.class,
    mode: deps.config.modes[input.class],
    tier: deps.config.remedies[input.class],
    killSwitch: input.open.gate.killSwitch,
    clusterOptedIn: input.open.gate.optedIn,
    // The stack has the Kubernetes function and an access entry for this cluster.
    clusterAccess: deps.config.clusterAccess === true && cluster.kubernetesApi !== false,
    findings,
    node: input.node,
    scope: cluster.remediation,
    nodeRoleArns: cluster.nodeRoleArns,
    incidentId: input.incidentId,
    cluster: input.cluster,
    images: input.entities.image ? [input.entities.image] : [],
    ...(sgSource ? { clusterSecurityGroupId: sgSource } : {}),
  });
  return { remedy: remedy ?? null, ...(recommend ? { recommend } : {}) };
}
