import type { EKSClient } from '@aws-sdk/client-eks';
import type { IAMClient } from '@aws-sdk/client-iam';
import { type Finding, finding } from '../../../core/contract/findings.js';
import { type ActionDecision, CNI_ACTIONS, ECR_PULL_ACTIONS, evaluate } from '../../../core/policy/iam-policy.js';
import { cniRole } from './cni-role.js';
import { rolePolicies } from './iam-policies.js';
import type { NodeContext } from './node-context.js';

const NOT_MODELLED = 'permission boundaries, SCPs and session policies are not evaluated';

function summarise(decisions: readonly ActionDecision[]): Record<string, string> {
  return Object.fromEntries(
    decisions.map((d) => [
      `${d.action} on ${d.resource}`,
      `${d.decision}${d.by.length ? ` by ${d.by.join(', ')}` : ''}`,
    ]),
  );
}

/** iam.node-role.ecr-read: the node role may get an ECR token and pull layers of the repository. */
export async function checkNodeRoleEcrRead(
  iam: IAMClient,
  node: NodeContext,
  repositoryArn = 'arn:aws:ecr:*:*:repository/*',
): Promise<Finding> {
  const id = 'iam.node-role.ecr-read';
  if (!node.roleName)
    return finding(id, 'error', `node ${node.instanceId} has no instance profile role`, {
      instanceId: node.instanceId,
    });
  const policies = await rolePolicies(iam, node.roleName);
  const decisions = [
    evaluate(policies, 'ecr:GetAuthorizationToken', '*'),
    ...ECR_PULL_ACTIONS.map((a) => evaluate(policies, a, repositoryArn)),
  ];
  const evidence = {
    role: node.roleName,
    policies: policies.map((p) => p.name),
    decisions: summarise(decisions),
    note: NOT_MODELLED,
  };
  const denied = decisions.filter((d) => d.decision === 'denied' || d.decision === 'implicitly-denied');
  if (denied.length) {
    const explicit = denied.some((d) => d.decision === 'denied');
    return finding(
      id,
      'fail',
      `node role ${node.roleName} cannot ${denied.map((d) => d.action).join(', ')}${explicit ? ' (explicit Deny)' : ''}`,
      evidence,
      explicit
        ? `remove the Deny on ${denied.map((d) => d.action).join(', ')} from ${denied.flatMap((d) => d.by).join(', ')}`
        : `attach arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly (or ...ReadOnly) to role ${node.roleName}`,
    );
  }
  const conditional = decisions.filter((d) => d.decision.startsWith('conditionally'));
  if (conditional.length) {
    return finding(
      id,
      'warn',
      `node role ${node.roleName} can pull from ECR only under conditions`,
      evidence,
      'check the conditions of the statements listed',
    );
  }
  return finding(id, 'pass', `node role ${node.roleName} can pull from ECR`, evidence);
}

/** iam.cni-policy: the role aws-node uses carries the ENI / IP permissions of AmazonEKS_CNI_Policy. */
export async function checkCniPolicy(
  iam: IAMClient,
  eks: EKSClient,
  cluster: string,
  node: NodeContext,
): Promise<Finding> {
  const id = 'iam.cni-policy';
  const role = await cniRole(eks, cluster, node);
  const roleName = role.roleArn?.split('/').pop();
  if (!roleName) return finding(id, 'warn', `aws-node uses ${role.via}; its role could not be read`, { via: role.via });
  const policies = await rolePolicies(iam, roleName);
  const decisions = CNI_ACTIONS.map((a) => evaluate(policies, a, '*'));
  const missing = decisions.filter((d) => d.decision === 'denied' || d.decision === 'implicitly-denied');
  const evidence = {
    role: roleName,
    roleArn: role.roleArn,
    via: role.via,
    policies: policies.map((p) => p.name),
    missing: missing.map((d) => d.action),
    note: NOT_MODELLED,
  };
  if (missing.length) {
    return finding(
      id,
      'fail',
      `${roleName} (${role.via}) lacks ${missing.map((d) => d.action).join(', ')}`,
      evidence,
      `attach arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy to ${roleName}; if the managed vpc-cni add-on overwrote the aws-node service account, set serviceAccountRoleArn on the add-on`,
    );
  }
  return finding(id, 'pass', `${roleName} (${role.via}) has the VPC CNI permissions`, evidence);
}
