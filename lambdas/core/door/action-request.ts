import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { FAILURE_CLASSES } from '../contract/failure-classes.js';
import '../text/zod-english.js';

/**
 * The action request: the one typed description of a change pod-doctor makes (and of the node
 * probe, the one read the door also runs, so that SendCommand lives only behind it). Every SSM
 * document, account remedy, cluster remedy, Kubernetes write and rollback is one of these; the door
 * (lambdas/aws/door) takes nothing else. Targets are identifiers the workflow resolved from EC2, EKS
 * and the Kubernetes API, never text from a log line; the door corroborates them again before acting.
 */

const matching = (re: RegExp) => z.string().check(z.regex(re));
/** A bounded list, typed read-only. */
const list = <T extends z.core.SomeType>(item: T, min: number, max: number) =>
  z.readonly(z.array(item).check(z.minLength(min), z.maxLength(max)));
export const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const SUBNET = /^subnet-[0-9a-f]{8,17}$/;
const SECURITY_GROUP = /^sg-[0-9a-f]{8,17}$/;
const IAM_NAME = /^[\w+=,.@/:-]{1,512}$/;
const CLUSTER_NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$/;
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-[0-9]$/;

/** A node: its instance id (EC2), and its Kubernetes name (the instance's private DNS name) where the action needs it. */
const node = z.object({ instanceId: matching(INSTANCE_ID), name: z.optional(matching(DNS_NAME)) });
/** A node the action reaches through the Kubernetes API: both names, which the door checks against EC2. */
const namedNode = z.object({ instanceId: matching(INSTANCE_ID), name: matching(DNS_NAME) });
const description = () => z.string().check(z.maxLength(255));
const pod = z.object({ namespace: matching(DNS_NAME), name: matching(DNS_NAME) });

/** The account remedies' targets (lambdas/core/remedy/*): resources named by the cluster's configuration. */
const accountTargets = [
  z.object({
    kind: z.literal('attach-managed-policy'),
    roleName: matching(IAM_NAME),
    roleArn: matching(IAM_NAME),
    policyArn: matching(IAM_NAME),
    findingId: z.enum(['iam.node-role.ecr-read', 'iam.cni-policy']),
    actions: list(matching(/^[a-z0-9-]+:[A-Za-z]+$/), 1, 20),
    reverts: z.optional(
      z.object({
        eventId: z.optional(z.string().check(z.maxLength(128))),
        by: z.optional(z.string().check(z.maxLength(512))),
        at: z.optional(z.string().check(z.maxLength(64))),
      }),
    ),
  }),
  z.object({
    kind: z.literal('add-sg-rule'),
    groupId: matching(SECURITY_GROUP),
    sourceGroupId: matching(SECURITY_GROUP),
    endpoints: list(z.string().check(z.maxLength(64)), 0, 10),
    description: description(),
  }),
  z.object({ kind: z.literal('create-cidr-reservation'), subnetId: matching(SUBNET), description: description() }),
  z.object({
    kind: z.literal('create-pull-through-cache'),
    ecrRepositoryPrefix: matching(/^[a-z0-9][a-z0-9._/-]{1,29}$/),
    credentialArn: z.optional(
      matching(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:ecr-pullthroughcache\/[\w/+=.@-]+$/),
    ),
    images: list(z.string().check(z.maxLength(512)), 0, 10),
    nodeRoleArns: z._default(list(matching(/^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/), 0, 10), []),
  }),
  z.object({ kind: z.literal('use-secondary-ips'), clusterName: matching(CLUSTER_NAME), subnetId: matching(SUBNET) }),
] as const;

/** An account remedy's target (what `lambdas/core/remedy/targets.ts` plans). */
export const accountTargetSchema = z.discriminatedUnion('kind', [...accountTargets]);

/**
 * Every action the door runs, by kind. Node commands name their document by kind (the door maps the
 * kind to its own document); their parameters are only those a document declares.
 */
export const actionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('probe-node'), node }),
  z.object({
    kind: z.literal('repair-pause-image'),
    node,
    /** The node's configured sandbox image (its probe's reading, checked against the trusted repositories). */
    image: z.string().check(z.minLength(1), z.maxLength(512)),
  }),
  z.object({ kind: z.literal('collect-logs'), node }),
  z.object({ kind: z.literal('restart-runtime'), node, target: z.enum(['kubelet', 'containerd', 'both']) }),
  ...accountTargets.map((t) => z.extend(t, { node: z.optional(node) })),
  z.object({ kind: z.literal('restart-aws-node'), node: namedNode }),
  z.object({ kind: z.literal('enable-windows-ipam') }),
  z.object({
    kind: z.literal('rollback-deployment'),
    /** The Deployment the stuck pods' owner chain names (API server's ownerReferences), never log text. */
    namespace: matching(DNS_NAME),
    deployment: matching(DNS_NAME),
    /** Revisions as the deployment controller wrote them on the ReplicaSets (deployment.kubernetes.io/revision). */
    fromRevision: z.int().check(z.minimum(1)),
    toRevision: z.int().check(z.minimum(1)),
  }),
  z.object({
    kind: z.literal('evict-stuck-pods'),
    node: namedNode,
    /** The stuck pods the inspection listed (API objects): only these, if still stuck and re-created by a controller. */
    pods: list(pod, 0, 50),
    /** The API server's dry run: budgets checked, nothing evicted. */
    dryRun: z.boolean(),
  }),
  z.object({ kind: z.literal('drain-node'), node: namedNode }),
  z.object({ kind: z.literal('cordon'), node: namedNode }),
  z.object({ kind: z.literal('uncordon'), node: namedNode }),
  z.object({
    kind: z.literal('report-events'),
    /**
     * The run's summary in the evidence bucket (`incidents/…json`, Summarize's own record): what the
     * events say. Their targets are the door's own reading (the summary's node as EC2 confirms it, and
     * the pods the Kubernetes API lists stuck on it), never a name from the request.
     */
    summaryJson: matching(/^incidents\/[A-Za-z0-9._=/-]{1,1000}\.json$/),
  }),
]);
export type Action = z.output<typeof actionSchema>;
export type ActionKind = Action['kind'];

/** Every kind, as a list (schemas of results name the kind). */
export const ACTION_KINDS_LIST = [
  'probe-node',
  'repair-pause-image',
  'collect-logs',
  'restart-runtime',
  'attach-managed-policy',
  'add-sg-rule',
  'create-cidr-reservation',
  'create-pull-through-cache',
  'use-secondary-ips',
  'restart-aws-node',
  'enable-windows-ipam',
  'rollback-deployment',
  'evict-stuck-pods',
  'drain-node',
  'cordon',
  'uncordon',
  'report-events',
] as const satisfies readonly ActionKind[];
/** Compile-time check: the list names every kind of {@link actionSchema}. */
export const ACTION_KINDS_COMPLETE: Exclude<ActionKind, (typeof ACTION_KINDS_LIST)[number]> extends never
  ? true
  : never = true;
export type AccountTarget = z.output<typeof accountTargetSchema>;

/** Account remedy kinds (run in the account through the apply-path discipline). */
export const ACCOUNT_KINDS = [
  'attach-managed-policy',
  'add-sg-rule',
  'create-cidr-reservation',
  'create-pull-through-cache',
  'use-secondary-ips',
] as const satisfies readonly ActionKind[];
/** Cluster remedy kinds (the apply-path discipline through the Kubernetes API). */
export const CLUSTER_REMEDY_KINDS = [
  'restart-aws-node',
  'enable-windows-ipam',
  'rollback-deployment',
] as const satisfies readonly ActionKind[];
/** Node command kinds (SSM documents on one node). */
export const NODE_COMMAND_KINDS = [
  'probe-node',
  'repair-pause-image',
  'collect-logs',
  'restart-runtime',
] as const satisfies readonly ActionKind[];

/** Node command actions (SSM documents). */
export type NodeCommandAction = Extract<Action, { kind: (typeof NODE_COMMAND_KINDS)[number] }>;
/** Account and cluster remedies (the apply-path discipline). */
export type RemedyAction = Extract<
  Action,
  { kind: (typeof ACCOUNT_KINDS)[number] | (typeof CLUSTER_REMEDY_KINDS)[number] }
>;
/** The write-back of a run as Kubernetes events (events only, no approval, capped per incident). */
export type ReportEventsAction = Extract<Action, { kind: 'report-events' }>;
/** Kubernetes actions on one node (evictions, drain, cordon, uncordon). */
export type NodeKubernetesAction = Extract<Action, { kind: 'evict-stuck-pods' | 'drain-node' | 'cordon' | 'uncordon' }>;

export const isNodeCommand = (a: Action): a is NodeCommandAction => isNodeCommandKind(a.kind);
export const isRemedy = (a: Action): a is RemedyAction => isAccountKind(a.kind) || isClusterRemedyKind(a.kind);

export const isAccountKind = (k: string): k is (typeof ACCOUNT_KINDS)[number] =>
  (ACCOUNT_KINDS as readonly string[]).includes(k);
export const isClusterRemedyKind = (k: string): k is (typeof CLUSTER_REMEDY_KINDS)[number] =>
  (CLUSTER_REMEDY_KINDS as readonly string[]).includes(k);
export const isNodeCommandKind = (k: string): k is (typeof NODE_COMMAND_KINDS)[number] =>
  (NODE_COMMAND_KINDS as readonly string[]).includes(k);

/**
 * The requests of one incident, by the slot they fill (the execution state keeps each result under
 * its slot): the diagnosis probe, the plan's remedy and its follow-up, the node action and its
 * follow-up, the verification probe, the eviction after a repair, the drain after a failed restart.
 */
export const SLOTS = [
  'probe',
  'remedy',
  'remedyFollowUp',
  'act',
  'followUp',
  'verifyProbe',
  'evict',
  'drain',
  'report',
] as const;
export type Slot = (typeof SLOTS)[number];

/** What Decide plans for one slot: the action, its disposition under the configuration, and why. */
export const plannedRequestSchema = z.object({
  action: actionSchema,
  /** auto: runs; approve: the door asks first; dry-run: the door shows what it would do. */
  disposition: z.enum(['auto', 'approve', 'dry-run']),
  description: z.string().check(z.maxLength(1000)),
  reason: z.string().check(z.maxLength(2000)),
});
export type PlannedRequest = z.output<typeof plannedRequestSchema>;

/** The incident an action is for (the workflow's own fields, never log text). */
export const incidentRefSchema = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  key: z.string().check(z.minLength(1), z.maxLength(1024)),
  class: z.enum(FAILURE_CLASSES),
  cluster: matching(CLUSTER_NAME),
});
export type IncidentRef = z.output<typeof incidentRefSchema>;

/**
 * Where the action runs. One account and Region today (the stack's); a fleet hub names the spoke's
 * account, whose role the door assumes (room for issue 26: absent means the stack's own account).
 */
export const actionScopeSchema = z.object({
  region: matching(REGION),
  account: z.optional(matching(/^\d{12}$/)),
});

/** One request to the door: the action, for which incident, from which execution, where. */
export const actionRequestSchema = z.object({
  slot: z.enum(SLOTS),
  action: actionSchema,
  disposition: z.enum(['auto', 'approve', 'dry-run']),
  description: z.string().check(z.maxLength(1000)),
  incident: incidentRefSchema,
  /** The execution (ARN) acting: approvals, reservations and the ledger are per execution. */
  execution: z.string().check(z.minLength(1), z.maxLength(2048)),
  scope: actionScopeSchema,
});
export type ActionRequest = z.output<typeof actionRequestSchema>;

/** JSON with object keys sorted at every level: the same value always serializes the same. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v as Record<string, unknown>)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * The digest an approval names: SHA-256 over exactly this action, its target, the incident and
 * execution, the scope, and the change as the door computed it (the diff lines; none for actions
 * without one). Approving one digest lets exactly that request run: another action, another target,
 * another execution or a diff that changed since (someone else touched the resource) is another digest.
 */
export function requestDigest(r: ActionRequest, diff: readonly string[] = []): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        v: 1,
        action: r.action,
        incident: { key: r.incident.key, class: r.incident.class, cluster: r.incident.cluster },
        execution: r.execution,
        scope: r.scope,
        diff,
      }),
    )
    .digest('hex');
}

/** One line naming the action and its target, for the ledger, approvals and the summary. */
export function actionLine(a: Action): string {
  const on = 'node' in a && a.node ? ` on ${a.node.name ?? a.node.instanceId}` : '';
  switch (a.kind) {
    case 'attach-managed-policy':
      return `attach ${a.policyArn} to role ${a.roleName}`;
    case 'add-sg-rule':
      return `allow TCP 443 from ${a.sourceGroupId} on ${a.groupId}`;
    case 'create-cidr-reservation':
      return `prefix CIDR reservation in ${a.subnetId}`;
    case 'create-pull-through-cache':
      return `ECR pull-through cache rule ${a.ecrRepositoryPrefix} for Docker Hub`;
    case 'use-secondary-ips':
      return `vpc-cni add-on of ${a.clusterName}: ENABLE_PREFIX_DELEGATION=false`;
    case 'enable-windows-ipam':
      return 'enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni';
    case 'rollback-deployment':
      return `roll Deployment ${a.namespace}/${a.deployment} back from revision ${a.fromRevision} to ${a.toRevision}`;
    case 'evict-stuck-pods':
      return `${a.dryRun ? 'dry-run ' : ''}evict stuck pods${on}`;
    default:
      return `${a.kind}${on}`;
  }
}
