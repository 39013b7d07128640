import { Stack } from 'aws-cdk-lib';
import { type IGrantable, type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { ATTACHABLE_POLICIES } from '../../lambdas/core/remedy/managed-policy.js';
import type { PodDoctorConfig } from '../config.js';
import { eksArn } from './eks-arn.js';
import { acknowledgeWildcardResources } from './nag.js';

/**
 * The account remedies' grants, for the door's role: writes only on the resources each cluster's
 * `remediation` lists — AttachRolePolicy / DetachRolePolicy on the listed roles and only for the AWS
 * managed ECR read and VPC CNI policies (condition iam:PolicyARN), security group ingress on the
 * listed endpoint security groups, CIDR reservations on the listed subnets, the Docker Hub
 * pull-through cache rule where one is configured (Region-scoped), UpdateAddon on the vpc-cni add-on
 * of clusters that allow it — plus the reads their re-checks need. No cluster lists anything: no write.
 */
/** Does any cluster list something account remedies may change (then the door holds their grants and code)? */
export function hasRemediationScope(clusters: PodDoctorConfig['clusters']): boolean {
  return clusters.some(
    ({ remediation: r }) =>
      r.roles.length + r.endpointSecurityGroups.length + r.subnets.length > 0 ||
      r.pullThroughCache !== undefined ||
      r.vpcCniAddon,
  );
}

export function grantRemedies(
  grantee: IGrantable & IConstruct,
  role: IRole,
  clusters: PodDoctorConfig['clusters'],
): void {
  const stack = Stack.of(grantee);
  const statements = [
    ...iamStatements(stack, clusters),
    ...ec2Statements(stack, clusters),
    ...ecrStatements(stack, clusters),
    ...addonStatements(stack, clusters),
  ];
  for (const s of statements) {
    grantee.grantPrincipal.addToPrincipalPolicy(s);
    const wildcards = s.resources.filter((r) => r.includes('*'));
    if (wildcards.length) acknowledgeWildcardResources(role, wildcards, wildcardReason(s.actions));
  }
}

const regionOf = (stack: Stack, c: { region?: string }) => c.region ?? stack.region;

/** IAM: attach / detach the three AWS managed policies on the listed roles; reads for the re-checks. */
function iamStatements(stack: Stack, clusters: PodDoctorConfig['clusters']): PolicyStatement[] {
  const roles = [...new Set(clusters.flatMap((c) => c.remediation.roles))].map((r) =>
    stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: r }),
  );
  if (!roles.length) return [];
  const policies = ATTACHABLE_POLICIES.map((p) => `arn:${stack.partition}:iam::aws:policy/${p}`);
  return [
    new PolicyStatement({
      actions: ['iam:AttachRolePolicy', 'iam:DetachRolePolicy'],
      resources: roles,
      conditions: { ArnEquals: { 'iam:PolicyARN': policies } },
    }),
    new PolicyStatement({
      actions: [
        'iam:ListAttachedRolePolicies',
        'iam:ListRolePolicies',
        'iam:GetRolePolicy',
        'iam:SimulatePrincipalPolicy',
      ],
      resources: roles,
    }),
    new PolicyStatement({
      actions: ['iam:GetPolicy', 'iam:GetPolicyVersion'],
      resources: [
        stack.formatArn({ service: 'iam', region: '', resource: 'policy', resourceName: '*' }),
        `arn:${stack.partition}:iam::aws:policy/*`,
      ],
    }),
    // The CNI re-check finds the role aws-node uses (Pod Identity, add-on IRSA) as the diagnosis does.
    new PolicyStatement({
      actions: ['eks:ListPodIdentityAssociations'],
      resources: clusters.map((c) => eksArn(stack, 'cluster', c.name, regionOf(stack, c))),
    }),
    new PolicyStatement({
      actions: ['eks:DescribePodIdentityAssociation'],
      resources: clusters.map((c) => eksArn(stack, 'podidentityassociation', `${c.name}/*`, regionOf(stack, c))),
    }),
    new PolicyStatement({
      actions: ['eks:DescribeAddon'],
      resources: clusters.map((c) => eksArn(stack, 'addon', `${c.name}/vpc-cni/*`, regionOf(stack, c))),
    }),
  ];
}

/** EC2: ingress on the listed endpoint groups, reservations on the listed subnets; reads for the re-checks. */
function ec2Statements(stack: Stack, clusters: PodDoctorConfig['clusters']): PolicyStatement[] {
  const arns = (resource: string, pick: (c: PodDoctorConfig['clusters'][number]) => readonly string[]) =>
    clusters.flatMap((c) =>
      pick(c).map((id) => stack.formatArn({ service: 'ec2', region: regionOf(stack, c), resource, resourceName: id })),
    );
  const groups = arns('security-group', (c) => c.remediation.endpointSecurityGroups);
  const subnets = arns('subnet', (c) => c.remediation.subnets);
  // use-secondary-ips reads the node subnet's usage as the reservation does.
  const subnetReads = subnets.length > 0 || clusters.some((c) => c.remediation.vpcCniAddon);
  const regions = [...new Set(clusters.map((c) => regionOf(stack, c)))];
  const out: PolicyStatement[] = [];
  if (groups.length)
    out.push(
      new PolicyStatement({
        actions: ['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupIngress'],
        resources: groups,
      }),
      new PolicyStatement({
        actions: ['ec2:DescribeRouteTables', 'ec2:DescribeVpcEndpoints', 'ec2:DescribeSecurityGroups'],
        resources: ['*'],
      }),
    );
  if (subnetReads)
    out.push(
      new PolicyStatement({
        actions: ['ec2:DescribeSubnets', 'ec2:DescribeNetworkInterfaces', 'ec2:GetSubnetCidrReservations'],
        resources: ['*'],
      }),
    );
  if (subnets.length)
    out.push(
      new PolicyStatement({ actions: ['ec2:CreateSubnetCidrReservation'], resources: subnets }),
      // DeleteSubnetCidrReservation has no resource type: only the region can scope it.
      new PolicyStatement({
        actions: ['ec2:DeleteSubnetCidrReservation'],
        resources: ['*'],
        conditions: { StringEquals: { 'ec2:Region': regions } },
      }),
    );
  return out;
}

/**
 * ECR: the Docker Hub pull-through cache rule of the clusters that configure one. The rule actions
 * have no resource type in IAM: the clusters' Regions scope them (aws:RequestedRegion). Its re-check
 * simulates those clusters' node roles (may they pull through the cache?).
 */
function ecrStatements(stack: Stack, clusters: PodDoctorConfig['clusters']): PolicyStatement[] {
  const caching = clusters.filter((c) => c.remediation.pullThroughCache);
  const regions = [...new Set(caching.map((c) => regionOf(stack, c)))];
  if (!regions.length) return [];
  const nodeRoles = [...new Set(caching.flatMap((c) => c.nodeRoleArns))];
  return [
    ...(nodeRoles.length
      ? [new PolicyStatement({ actions: ['iam:SimulatePrincipalPolicy'], resources: nodeRoles })]
      : []),
    new PolicyStatement({
      actions: [
        'ecr:CreatePullThroughCacheRule',
        'ecr:DeletePullThroughCacheRule',
        'ecr:DescribePullThroughCacheRules',
        'ecr:ValidatePullThroughCacheRule',
      ],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': regions } },
    }),
  ];
}

/**
 * EKS: UpdateAddon (and the DescribeAddon its re-check and verification read) on the vpc-cni add-on
 * of the clusters that allow use-secondary-ips, and nothing else (its ARN ends in a generated id).
 */
function addonStatements(stack: Stack, clusters: PodDoctorConfig['clusters']): PolicyStatement[] {
  const addons = clusters
    .filter((c) => c.remediation.vpcCniAddon)
    .map((c) => eksArn(stack, 'addon', `${c.name}/vpc-cni/*`, regionOf(stack, c)));
  return addons.length
    ? [new PolicyStatement({ actions: ['eks:UpdateAddon', 'eks:DescribeAddon'], resources: addons })]
    : [];
}

/** Why a wildcard in a statement with these actions cannot be narrower (cdk-nag IAM5). */
function wildcardReason(actions: readonly string[]): string {
  if (actions.includes('iam:GetPolicy'))
    return 'The ECR/CNI re-check reads every managed policy (customer or AWS managed) attached to the listed roles, whichever they are.';
  if (actions.includes('ecr:CreatePullThroughCacheRule'))
    return "ECR pull-through cache rule actions have no resource type; limited to the clusters' Regions (aws:RequestedRegion).";
  if (actions.includes('eks:DescribePodIdentityAssociation'))
    return 'Association ids are generated; scoped to the configured cluster.';
  if (actions.includes('eks:DescribeAddon') || actions.includes('eks:UpdateAddon'))
    return 'The vpc-cni add-on ARN ends in a generated id; scoped to the configured cluster.';
  return 'EC2 Describe*/GetSubnetCidrReservations reads and ec2:DeleteSubnetCidrReservation (condition ec2:Region) have no resource-level permissions.';
}
