import { DescribeNodegroupCommand, type EKSClient } from '@aws-sdk/client-eks';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { askFirst } from '../../core/agent-request.js';
import { type DrainPlan, planDrain } from '../../core/drain.js';
import { type EvictPlan, planEviction } from '../../core/evict-after-repair.js';
import type { Finding } from '../../core/findings.js';
import { nodeTrust } from '../../core/node-trust.js';
import { decide, type Plan, type PlannedAction } from '../../core/policy.js';
import { type CommandResult, probeFindings } from '../../core/probe.js';
import { type PlannedRemedy, planRemedy } from '../../core/remedy/plan.js';
import type { IncidentInput, WorkflowConfig } from '../../core/workflow-config.js';
import type { NodeContext } from '../checks/node-context.js';
import { nodeCooldownKey } from '../incident-table.js';
import type { OpenResult } from './open-incident.js';
import { markAndCountAffected } from './safety-reads.js';

/**
 * When pod-doctor last acted on this instance for this class. Summarize writes the cooldown under the
 * resolved instance id; the incident may have named the node by DNS name, so read it by id here.
 */
async function lastActionOn(instanceId: string | undefined, input: DecideInput, deps: DecideDeps) {
  const opened = input.open.history.lastNodeActionAt ?? undefined;
  if (!instanceId) return opened;
  const r = await deps.ddb.send(
    new GetCommand({ TableName: deps.config.tableName, Key: nodeCooldownKey(instanceId, input.class) }),
  );
  const at = typeof r.Item?.at === 'number' ? r.Item.at : undefined;
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

export interface DecideInput extends IncidentInput {
  readonly open: OpenResult;
  readonly node?: Partial<NodeContext>;
  /** Set by the Catch of Resolve node. */
  readonly resolveError?: { readonly Error?: string; readonly Cause?: string };
  readonly diagnosis: readonly ({ findings?: Finding[] } | { probe?: CommandResult })[];
}

export interface DecideDeps {
  readonly eks: EKSClient;
  /** Reads the cooldown of the resolved instance. */
  readonly ddb: DynamoDBDocumentClient;
  readonly config: WorkflowConfig;
  readonly now: () => number;
}

export interface DecideOutput {
  readonly decision: Plan['decision'];
  readonly actions: Plan['actions'];
  readonly reasons: string[];
  readonly recommendations: readonly string[];
  readonly findings: Finding[];
  /**
   * The account or cluster remedy the workflow prepares (and applies, after approval or when auto),
   * with its follow-up, or null.
   */
  readonly remedy: PlannedRemedy | null;
  /** What Send node command needs, or null. */
  readonly nodeAction: NodeCommand | null;
  /** The node action after a successful `nodeAction` (asked for when its disposition is `approve`), or null. */
  readonly followUp: NodeCommand | null;
  /** Size of the node's node group (0: unknown): the gate before Act re-reads the breaker with it. */
  readonly nodeGroupSize: number;
  /** PID exhaustion: the cordon and drain asked for when the runtime restart fails verification, or null. */
  readonly drain: DrainPlan | null;
  /** The pause repair: the eviction of pods that stay stuck once the node is healthy, or null. */
  readonly evict: EvictPlan | null;
}

/** A planned node action as the Act step sends it. */
export interface NodeCommand {
  readonly id: string;
  readonly description: string;
  readonly disposition: PlannedAction['disposition'];
  readonly documentName: string;
  readonly parameters: Record<string, string[]>;
  readonly timeoutSeconds: number;
}

/** The SSM document, parameters and timeout of a planned node action. */
function nodeCommand(a: PlannedAction | undefined, input: DecideInput, deps: DecideDeps): NodeCommand | null {
  if (a?.document === undefined) return null;
  const parameters =
    a.document === 'collectLogs'
      ? { Bucket: deps.config.evidenceBucket, Prefix: `incidents/${input.incidentId}`, DryRun: 'false' }
      : (a.parameters ?? {});
  return {
    id: a.id,
    description: a.description,
    disposition: a.disposition,
    documentName: deps.config.documents[a.document],
    parameters: Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, [v]])),
    timeoutSeconds: a.document === 'collectLogs' ? 600 : 300,
  };
}

/** What the approver reads of an agent's request: who asked, when, and its note (the agent's words, quoted). */
function agentReason(r: DecideInput['agentRequest']): string[] {
  return r
    ? [`requested by an agent through MCP at ${r.at}: every change asks first; its note: ${JSON.stringify(r.note)}`]
    : [];
}

/**
 * Decide: findings from every diagnosis branch, the node group size for the breaker, then the policy.
 * A run an agent asked for (`agentRequest`) decides under {@link askFirst}: every change asks a human.
 */
export async function decideIncident(input: DecideInput, given: DecideDeps): Promise<DecideOutput> {
  const deps = input.agentRequest ? { ...given, config: askFirst(given.config, input.class) } : given;
  const { findings, probe } = diagnosisOf(input);
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
  const { remedy, recommend } = remedyOf(input, deps, findings);
  if (remedy?.disposition === 'blocked') reasons.push(`${remedy.id}: ${remedy.reason}`);
  if (recommend) reasons.push(recommend);
  return {
    decision: plan.decision,
    actions: withRemedyDispositions(plan.actions, remedy, recommend),
    remedy,
    reasons: [...plan.reasons, ...reasons],
    recommendations: recommend ? [recommend, ...plan.recommendations] : plan.recommendations,
    findings,
    nodeAction: nodeCommand(plan.nodeAction, input, deps),
    followUp: nodeCommand(plan.followUp, input, deps),
    nodeGroupSize: nodeGroup.size,
    drain:
      planDrain({
        mode: deps.config.modes[input.class],
        killSwitch: input.open.gate.killSwitch,
        restart: plan.actions.find((a) => a.id === 'restart-runtime')?.disposition,
        instanceId: trust.instanceId,
        nodegroupName: input.node?.nodegroupName,
        nodeAutoRepair: nodeGroup.autoRepair,
        findings,
      }) ?? null,
    evict:
      planEviction({
        mode: deps.config.modes[input.class],
        tier: deps.config.remedies[input.class],
        killSwitch: input.open.gate.killSwitch,
        clusterOptedIn: input.open.gate.optedIn,
        nodeAction: plan.nodeAction?.id,
        findings,
      }) ?? null,
  };
}

/** The findings of every diagnosis branch (the probe's read into findings), and the probe's result. */
function diagnosisOf(input: DecideInput): { findings: Finding[]; probe: CommandResult | undefined } {
  const findings: Finding[] = [];
  let probe: CommandResult | undefined;
  for (const branch of input.diagnosis) {
    if ('findings' in branch && branch.findings) findings.push(...branch.findings);
    if ('probe' in branch) {
      probe = branch.probe;
      findings.push(...probeFindings(branch.probe));
    }
  }
  return { findings, probe };
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
  actions: readonly PlannedAction[],
  remedy: PlannedRemedy | null,
  recommend: string | undefined,
): PlannedAction[] {
  const planned = [remedy, remedy?.followUp].filter((r): r is PlannedRemedy => !!r && r.disposition !== 'blocked');
  return actions.map((x) => {
    const r = planned.find((p) => p.id === x.id);
    if (r) return { ...x, disposition: r.disposition === 'dry-run' ? 'recommend' : r.disposition, reason: r.reason };
    return recommend && x.tier === 'cluster' ? { ...x, reason: recommend } : x;
  });
}

/** The incident's remedy within the cluster's configured scope (pure planning, see core/remedy/plan). */
function remedyOf(
  input: DecideInput,
  deps: DecideDeps,
  findings: readonly Finding[],
): { remedy: PlannedRemedy | null; recommend?: string } {
  const cluster = deps.config.clusters.find((c) => c.name === input.cluster);
  if (!cluster) return { remedy: null };
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
  });
  return { remedy: remedy ?? null, ...(recommend ? { recommend } : {}) };
}
