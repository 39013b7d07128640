import { DescribeClusterCommand, DescribeNodegroupCommand } from '@aws-sdk/client-eks';
import type { AccountTarget } from '../../core/door/action-request.js';
import type { ApplyPath } from '../../core/remedy/apply-path.js';
import { cidrReservationPath } from '../../core/remedy/cidr-reservation.js';
import { managedPolicyPath } from '../../core/remedy/managed-policy.js';
import { pullThroughCachePath } from '../../core/remedy/pull-through-cache.js';
import { secondaryIpsPath } from '../../core/remedy/secondary-ips.js';
import { sgIngressPath } from '../../core/remedy/sg-ingress.js';
import type { RemediationScope } from '../../core/remedy/targets.js';
import type { WorkflowConfig } from '../../core/workflow/workflow-config.js';
import { checkCniPolicy, checkNodeRoleEcrRead } from '../readers/account/iam-checks.js';
import { checkEndpoints, checkSubnet } from '../readers/account/network-checks.js';
import type { NodeContext } from '../readers/account/node-context.js';
import { cachePort, cidrPort, iamPort, recheckOf, sgPort } from './account-ports.js';
import { addonPort } from './addon-port.js';
import { type AccountRemedies, type RemedyClients, RemedyTargetError } from './executor.js';

export { type RemedyClients, RemedyTargetError };

/**
 * Account remedies behind the door: each target's apply path, bound to ports that may write, and
 * the checks that its target is the cluster's own — within the cluster's configured `remediation`,
 * and (roles, security groups) named by the cluster's and node group's own configuration.
 */

function scopeOf(config: WorkflowConfig, cluster: string): RemediationScope & { nodeRoles: readonly string[] } {
  const c = config.clusters.find((x) => x.name === cluster);
  if (!c) throw new RemedyTargetError(`cluster ${cluster} is not configured`);
  return { ...c.remediation, nodeRoles: c.nodeRoleArns };
}

/** The target within the cluster's configured `remediation` (the same lists the door's role is scoped to). */
export function assertInScope(t: AccountTarget, config: WorkflowConfig, cluster: string): void {
  const scope = scopeOf(config, cluster);
  if (t.kind === 'attach-managed-policy' && !scope.roles.includes(t.roleName))
    throw new RemedyTargetError(`role ${t.roleName} is not in the cluster's remediation scope`);
  if (t.kind === 'add-sg-rule' && !scope.endpointSecurityGroups.includes(t.groupId))
    throw new RemedyTargetError(`security group ${t.groupId} is not in the cluster's remediation scope`);
  if (t.kind === 'create-cidr-reservation' && !scope.subnets.includes(t.subnetId))
    throw new RemedyTargetError(`subnet ${t.subnetId} is not in the cluster's remediation scope`);
  if (
    t.kind === 'create-pull-through-cache' &&
    (scope.pullThroughCache?.ecrRepositoryPrefix !== t.ecrRepositoryPrefix ||
      scope.pullThroughCache?.credentialArn !== t.credentialArn)
  )
    throw new RemedyTargetError("the pull-through cache rule is not the cluster's remediation.pullThroughCache");
  if (t.kind === 'create-pull-through-cache' && t.nodeRoleArns?.some((r) => !scope.nodeRoles.includes(r)))
    throw new RemedyTargetError("a node role of the target is not one of the cluster's nodeRoleArns");
  if (t.kind === 'use-secondary-ips' && (!scope.vpcCniAddon || t.clusterName !== cluster))
    throw new RemedyTargetError("the cluster's remediation.vpcCniAddon is not set for this cluster");
}

/**
 * The target is the cluster's own, on EKS's word: the add-sg-rule source is the cluster security
 * group EKS created (DescribeCluster), never a group of some instance tagged for the cluster; a node
 * role is one of the configured node roles or its managed node group's role (DescribeNodegroup).
 */
export async function assertClusterOwned(
  t: AccountTarget,
  o: { readonly cluster: string; readonly node?: NodeContext; readonly config: WorkflowConfig },
  clients: RemedyClients,
): Promise<void> {
  if (t.kind === 'add-sg-rule') {
    const c = await clients.eks.send(new DescribeClusterCommand({ name: o.cluster }));
    const clusterGroup = c.cluster?.resourcesVpcConfig?.clusterSecurityGroupId;
    if (!clusterGroup || t.sourceGroupId !== clusterGroup)
      throw new RemedyTargetError(
        `the rule's source ${t.sourceGroupId} is not the cluster security group of ${o.cluster} (${clusterGroup ?? 'none'}): the source comes from the cluster's configuration only`,
      );
    return;
  }
  if (t.kind !== 'attach-managed-policy' || t.findingId !== 'iam.node-role.ecr-read') return;
  const configured = scopeOf(o.config, o.cluster).nodeRoles;
  if (configured.includes(t.roleArn)) return;
  const nodegroup = o.node?.nodegroupName;
  const ng = nodegroup
    ? await clients.eks.send(new DescribeNodegroupCommand({ clusterName: o.cluster, nodegroupName: nodegroup }))
    : undefined;
  if (ng?.nodegroup?.nodeRole !== t.roleArn)
    throw new RemedyTargetError(
      `role ${t.roleName} is neither a configured node role of ${o.cluster} nor its managed node group's role`,
    );
}

/** The apply path for a target, its ports bound to the clients and its re-check to the diagnosis check. */
export function pathFor(
  t: AccountTarget,
  o: { readonly cluster: string; readonly region: string; readonly node: NodeContext },
  clients: RemedyClients,
): ApplyPath<unknown> {
  const { node } = o;
  if (t.kind === 'attach-managed-policy') {
    const recheck =
      t.findingId === 'iam.cni-policy'
        ? () => recheckOf(() => checkCniPolicy(clients.iam, clients.eks, o.cluster, node), t.findingId, t.roleName)
        : () => recheckOf(() => checkNodeRoleEcrRead(clients.iam, node), t.findingId);
    return managedPolicyPath(t, iamPort(clients.iam, recheck)) as ApplyPath<unknown>;
  }
  if (t.kind === 'create-pull-through-cache') {
    const account = /^arn:[^:]+:secretsmanager:[^:]+:(\d{12}):/.exec(t.credentialArn ?? '')?.[1] ?? '';
    const port = cachePort(clients.ecr(o.region), account, clients.iam);
    return pullThroughCachePath(t, port, o.region) as ApplyPath<unknown>;
  }
  const network = { node, region: o.region, neededIps: 16 };
  if (t.kind === 'use-secondary-ips') {
    const recheck = () => recheckOf(() => checkSubnet(clients.ec2, network), 'subnet.free-prefix-blocks');
    return secondaryIpsPath(t, addonPort(clients.eks, clients.ec2, recheck)) as ApplyPath<unknown>;
  }
  if (t.kind === 'create-cidr-reservation') {
    const recheck = () => recheckOf(() => checkSubnet(clients.ec2, network), 'subnet.free-prefix-blocks');
    return cidrReservationPath(t, cidrPort(clients.ec2, recheck)) as ApplyPath<unknown>;
  }
  const recheck = () => recheckOf(() => checkEndpoints(clients.ec2, network), 'vpc.endpoint.sg-443');
  return sgIngressPath(t, sgPort(clients.ec2, recheck)) as ApplyPath<unknown>;
}

const NO_NODE: NodeContext = { instanceId: '', securityGroupIds: [] };

/**
 * The account remedies as the door with remediation scope runs them: the target within the cluster's
 * `remediation`, the cluster's own on EKS's word, then its apply path on `clients`.
 */
export function accountRemedies(clients: RemedyClients): AccountRemedies {
  return {
    async path(t, o) {
      assertInScope(t, o.config, o.cluster);
      await assertClusterOwned(t, o, clients);
      return pathFor(t, { cluster: o.cluster, region: o.region, node: o.node ?? NO_NODE }, clients);
    },
  };
}
