import type { FailureClass } from '../contract/failure-classes.js';
import type { Finding } from '../contract/findings.js';
import { CNI_ACTIONS, ECR_PULL_ACTIONS } from '../policy/iam-policy.js';
import type { CidrReservationTarget } from './cidr-reservation.js';
import { isAttachablePolicy, type ManagedPolicyTarget } from './managed-policy.js';
import { dockerHubReference, type PullThroughCacheTarget } from './pull-through-cache.js';
import type { SecondaryIpsTarget } from './secondary-ips.js';
import type { SgIngressTarget } from './sg-ingress.js';

export type RemedyTarget =
  | ManagedPolicyTarget
  | SgIngressTarget
  | CidrReservationTarget
  | PullThroughCacheTarget
  | SecondaryIpsTarget;

/**
 * The resources of one cluster pod-doctor may change (deployment configuration, the same lists the
 * remedy role's grants are scoped to).
 */
export interface RemediationScope {
  /** IAM role names: node roles and the role aws-node uses. */
  readonly roles: readonly string[];
  /** Security groups of the cluster's VPC endpoints. */
  readonly endpointSecurityGroups: readonly string[];
  /** Subnets where prefix-type CIDR reservations may be created. */
  readonly subnets: readonly string[];
  /** The Docker Hub pull-through cache rule remedies may create (absent: none). */
  readonly pullThroughCache?: { readonly ecrRepositoryPrefix: string; readonly credentialArn?: string };
  /** The managed vpc-cni add-on's configuration may move from prefix delegation to secondary IPs. */
  readonly vpcCniAddon?: boolean;
}

/** The node as the workflow resolved it from EC2 (never from log text). */
export interface RemedyNode {
  readonly roleName?: string;
  readonly roleArn?: string;
  readonly securityGroupIds?: readonly string[];
}

export interface RemedyTargetInput {
  readonly class: FailureClass;
  readonly findings: readonly Finding[];
  readonly node?: RemedyNode;
  readonly scope: RemediationScope;
  readonly incidentId: string;
  /** The cluster's node roles (deployment configuration): a pull-through cache must let them pull. */
  readonly nodeRoleArns?: readonly string[];
  /** The incident's cluster (the vpc-cni add-on is the cluster's). */
  readonly cluster?: string;
  /** Image references of the incident (tenant text: validated, only ever reported, never pulled). */
  readonly images?: readonly string[];
  /** The cluster security group EKS created (DescribeCluster): the only source add-sg-rule names. */
  readonly clusterSecurityGroupId?: string;
}

/** A target, or why there is none (for the summary). */
export type TargetResult = { readonly target: RemedyTarget } | { readonly target?: undefined; readonly reason: string };

const failing = (f: readonly Finding[], id: string) => f.find((x) => x.id === id && x.status === 'fail');

interface ChangeHit {
  readonly event?: string;
  readonly eventId?: string;
  readonly by?: string;
  readonly at?: string;
  readonly roleName?: string;
  readonly policyArn?: string;
}

/** The most recent attributed DetachRolePolicy of an attachable policy from this role, if any. */
function detachedFrom(findings: readonly Finding[], roleName: string, wanted: (arn: string) => boolean) {
  const changes = (findings.find((f) => f.id === 'change.recent')?.evidence.changes ?? []) as ChangeHit[];
  return changes.find(
    (c) =>
      c.event === 'DetachRolePolicy' &&
      c.roleName === roleName &&
      c.policyArn !== undefined &&
      isAttachablePolicy(c.policyArn) &&
      wanted(c.policyArn),
  );
}

const partitionOf = (arn: string) => /^arn:(aws[a-z-]*):/.exec(arn)?.[1] ?? 'aws';

function ecrReadTarget(i: RemedyTargetInput): TargetResult {
  const f = failing(i.findings, 'iam.node-role.ecr-read');
  if (!f) return { reason: 'iam.node-role.ecr-read does not fail' };
  const decisions = Object.values((f.evidence.decisions ?? {}) as Record<string, string>);
  if (decisions.some((d) => d.startsWith('denied')))
    return { reason: 'an explicit Deny blocks ECR reads: attaching a policy cannot help, remove the Deny' };
  const roleName = i.node?.roleName;
  const roleArn = i.node?.roleArn;
  if (!roleName || !roleArn) return { reason: 'the node role is unknown' };
  const hit = detachedFrom(i.findings, roleName, (a) => /ContainerRegistry/.test(a));
  const policyArn = hit?.policyArn ?? `arn:${partitionOf(roleArn)}:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly`;
  return {
    target: {
      kind: 'attach-managed-policy',
      roleName,
      roleArn,
      policyArn,
      findingId: 'iam.node-role.ecr-read',
      actions: ['ecr:GetAuthorizationToken', ...ECR_PULL_ACTIONS],
      reverts: hit ? { eventId: hit.eventId, by: hit.by, at: hit.at } : undefined,
    },
  };
}

function cniTarget(i: RemedyTargetInput): TargetResult {
  const f = failing(i.findings, 'iam.cni-policy');
  if (!f) return { reason: 'iam.cni-policy does not fail' };
  const roleName = f.evidence.role as string | undefined;
  const roleArn = f.evidence.roleArn as string | undefined;
  if (!roleName || !roleArn) return { reason: 'the role aws-node uses is unknown' };
  const hit = detachedFrom(i.findings, roleName, (a) => a.endsWith('/AmazonEKS_CNI_Policy'));
  return {
    target: {
      kind: 'attach-managed-policy',
      roleName,
      roleArn,
      policyArn: `arn:${partitionOf(roleArn)}:iam::aws:policy/AmazonEKS_CNI_Policy`,
      findingId: 'iam.cni-policy',
      actions: [...CNI_ACTIONS],
      reverts: hit ? { eventId: hit.eventId, by: hit.by, at: hit.at } : undefined,
    },
  };
}

function sgTarget(i: RemedyTargetInput): TargetResult {
  const f = failing(i.findings, 'vpc.endpoint.sg-443');
  if (!f) return { reason: 'vpc.endpoint.sg-443 does not fail' };
  const blocked = (f.evidence.blockedGroups ?? []) as { endpoint: string; groupIds: string[] }[];
  // The source is the cluster security group EKS created (DescribeCluster), never a group of some
  // instance that carries the cluster's tag: anyone who may launch an instance can set that tag.
  const source = i.clusterSecurityGroupId;
  const first = blocked.find((b) => b.groupIds.length > 0);
  if (!first) return { reason: "the endpoint's security group is unknown" };
  if (!source) return { reason: 'the cluster security group is unknown (EKS DescribeCluster)' };
  if (i.node?.securityGroupIds && !i.node.securityGroupIds.includes(source))
    return {
      reason: `the node does not carry the cluster security group ${source}: allow TCP 443 from the nodes' own security group on ${first.groupIds[0]} by hand`,
    };
  return {
    target: {
      kind: 'add-sg-rule',
      groupId: first.groupIds[0],
      sourceGroupId: source,
      endpoints: blocked.filter((b) => b.groupIds.includes(first.groupIds[0])).map((b) => b.endpoint),
      description: `pod-doctor ${i.incidentId}: ECR endpoints from nodes`.slice(0, 255),
    },
  };
}

function cidrTarget(i: RemedyTargetInput): TargetResult {
  const f = i.findings.find(
    (x) => x.id === 'subnet.free-prefix-blocks' && (x.status === 'fail' || x.status === 'warn'),
  );
  if (!f) return { reason: 'subnet.free-prefix-blocks neither fails nor warns' };
  const subnetId = f.evidence.subnetId as string | undefined;
  if (!subnetId) return { reason: 'the subnet is unknown' };
  // No free aligned /28 anywhere: a reservation cannot help; single secondary IPs need none.
  if (f.status === 'fail' && f.evidence.freeBlocks === 0) {
    if (i.scope.vpcCniAddon && i.cluster)
      return { target: { kind: 'use-secondary-ips', clusterName: i.cluster, subnetId } };
    return {
      reason: `subnet ${subnetId} has no free aligned /28: a prefix reservation cannot help; add a subnet (or a secondary VPC CIDR) for the node group, or move the VPC CNI to secondary IPs (set the cluster's remediation.vpcCniAddon to let pod-doctor do it)`,
    };
  }
  return {
    target: {
      kind: 'create-cidr-reservation',
      subnetId,
      description: `pod-doctor ${i.incidentId}: keep free /28 blocks for prefix delegation`.slice(0, 255),
    },
  };
}

function pullThroughTarget(i: RemedyTargetInput): TargetResult {
  const cache = i.scope.pullThroughCache;
  if (!cache) return { reason: "the cluster's remediation.pullThroughCache is not configured" };
  return {
    target: {
      kind: 'create-pull-through-cache',
      ecrRepositoryPrefix: cache.ecrRepositoryPrefix,
      ...(cache.credentialArn ? { credentialArn: cache.credentialArn } : {}),
      images: [...new Set(i.images ?? [])].filter((x) => dockerHubReference(x)).slice(0, 10),
      nodeRoleArns: [...(i.nodeRoleArns ?? [])].slice(0, 10),
    },
  };
}

/** Which resource of the target the scope must list. */
function outOfScope(t: RemedyTarget, scope: RemediationScope): string | undefined {
  if (t.kind === 'attach-managed-policy' && !scope.roles.includes(t.roleName))
    return `role ${t.roleName} is not listed in the cluster's remediation.roles`;
  if (t.kind === 'add-sg-rule' && !scope.endpointSecurityGroups.includes(t.groupId))
    return `security group ${t.groupId} is not listed in the cluster's remediation.endpointSecurityGroups`;
  if (t.kind === 'create-cidr-reservation' && !scope.subnets.includes(t.subnetId))
    return `subnet ${t.subnetId} is not listed in the cluster's remediation.subnets`;
  if (
    t.kind === 'create-pull-through-cache' &&
    (scope.pullThroughCache?.ecrRepositoryPrefix !== t.ecrRepositoryPrefix ||
      scope.pullThroughCache?.credentialArn !== t.credentialArn)
  )
    return "the pull-through cache rule is not the cluster's remediation.pullThroughCache";
  if (t.kind === 'use-secondary-ips' && !scope.vpcCniAddon)
    return "the cluster's remediation.vpcCniAddon is not set: its vpc-cni add-on is not changed";
  return undefined;
}

/**
 * The account change that addresses the incident's proven cause, within the configured scope. Every
 * value comes from account checks (IAM, EC2, CloudTrail records), never from log text.
 */
export function remedyTarget(i: RemedyTargetInput): TargetResult {
  let r: TargetResult;
  switch (i.class) {
    case 'sandbox-image':
    case 'registry-auth':
      r = ecrReadTarget(i);
      break;
    case 'cni-permissions':
      r = cniTarget(i);
      break;
    case 'registry-unreachable':
      r = sgTarget(i);
      break;
    case 'cidr-fragmentation':
      r = cidrTarget(i);
      break;
    case 'rate-limited':
      r = pullThroughTarget(i);
      break;
    default:
      return { reason: `no account remedy for ${i.class}` };
  }
  if (!r.target) return r;
  const why = outOfScope(r.target, i.scope);
  return why ? { reason: why } : r;
}
