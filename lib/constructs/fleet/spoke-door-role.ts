import { Aws, Stack } from 'aws-cdk-lib';
import { AccountPrincipal, type IRole, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  DOOR_SOURCE_IDENTITY_PREFIX,
  doorRolePath,
  spokeDoorRoleName,
} from '../../../lambdas/core/fleet/fleet-reach.js';
import { eksArn } from '../eks-arn.js';
import { acknowledgeClusterResources, acknowledgeDescribeOnly, acknowledgeInstanceProfiles } from '../nag.js';
import type { NodeCommands } from '../node-commands.js';

/** Props of {@link SpokeDoorRole}. */
export interface SpokeDoorRoleProps {
  /** The fleet's name (the role's name, the hub's door role path, the ExternalId). */
  readonly fleet: string;
  /** The hub's account: only its door role may assume this role. */
  readonly hubAccount: string;
  /** The organization both accounts are in (`aws:PrincipalOrgID`). */
  readonly organizationId: string;
  /** The clusters of this account and Region whose nodes the door may run commands on (by tag). */
  readonly clusters: readonly string[];
  /** pod-doctor's documents in this account and Region (fixed names: the hub sends by name). */
  readonly nodeCommands: NodeCommands;
}

/**
 * The role the hub's door assumes in a member account and Region, and the only one there that may
 * change anything: Run Command with pod-doctor's own documents on nodes tagged as the spoke's
 * clusters, and the reads that corroborate a target (the instance, its profile, its node group).
 * Its trust policy admits the hub's door role alone (`aws:PrincipalArn` under the door's path,
 * `aws:PrincipalOrgID`, `sts:ExternalId` the fleet's name), which may set a source identity naming
 * the incident (`sts:SetSourceIdentity`, `pod-doctor-door-…`): the member's CloudTrail shows which
 * incident every call was for. The checks' roles cannot assume it.
 */
export class SpokeDoorRole extends Construct {
  readonly role: IRole;

  constructor(scope: Construct, id: string, props: SpokeDoorRoleProps) {
    super(scope, id);
    const door = `arn:${Aws.PARTITION}:iam::${props.hubAccount}:role${doorRolePath(props.fleet)}*`;
    const hub = () =>
      new AccountPrincipal(props.hubAccount).withConditions({
        ArnLike: { 'aws:PrincipalArn': door },
        StringEquals: { 'aws:PrincipalOrgID': props.organizationId, 'sts:ExternalId': props.fleet },
      });
    const role = new Role(this, 'Role', {
      roleName: spokeDoorRoleName(props.fleet, Aws.REGION),
      description: `pod-doctor fleet ${props.fleet}: the hub's door acts here (Run Command on the clusters' nodes)`,
      assumedBy: hub(),
    });
    // SetSourceIdentity is authorised separately (the trust policy and the caller's policy): the door's prefix only.
    role.assumeRolePolicy?.addStatements(
      new PolicyStatement({
        actions: ['sts:SetSourceIdentity'],
        principals: [new AccountPrincipal(props.hubAccount)],
        conditions: {
          ArnLike: { 'aws:PrincipalArn': door },
          StringEquals: { 'aws:PrincipalOrgID': props.organizationId },
          StringLike: { 'sts:SourceIdentity': `${DOOR_SOURCE_IDENTITY_PREFIX}*` },
        },
      }),
    );
    props.nodeCommands.grantSendCommand(role, props.nodeCommands.names, props.clusters);
    props.nodeCommands.grantReadInvocations(role);
    this.grantTargets(role, props.clusters);
    this.role = role;
  }

  /** The reads that corroborate a target, as the hub's door has them in its own account. */
  private grantTargets(role: Role, clusters: readonly string[]): void {
    const stack = Stack.of(this);
    role.addToPolicy(new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }));
    acknowledgeDescribeOnly(role);
    const profiles = [stack.formatArn({ service: 'iam', region: '', resource: 'instance-profile', resourceName: '*' })];
    role.addToPolicy(new PolicyStatement({ actions: ['iam:GetInstanceProfile'], resources: profiles }));
    acknowledgeInstanceProfiles(role, profiles);
    if (clusters.length === 0) return;
    const nodegroups = clusters.map((c) => eksArn(stack, 'nodegroup', `${c}/*`));
    role.addToPolicy(
      new PolicyStatement({
        actions: ['eks:DescribeCluster'],
        resources: clusters.map((c) => eksArn(stack, 'cluster', c)),
      }),
    );
    role.addToPolicy(new PolicyStatement({ actions: ['eks:DescribeNodegroup'], resources: nodegroups }));
    acknowledgeClusterResources(role, 'nodegroup', nodegroups);
  }
}
