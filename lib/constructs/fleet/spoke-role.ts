import { Aws } from 'aws-cdk-lib';
import { AccountPrincipal, type IRole, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { hubRolePath, spokeRoleName } from '../../../lambdas/core/fleet/fleet.js';
import { acknowledgeDescribeOnly } from '../nag.js';

/** Props of {@link SpokeRole}. */
export interface SpokeRoleProps {
  /** The fleet's name (role names, the hub's role path, the ExternalId). */
  readonly fleet: string;
  /** The hub's account: only roles under the fleet's path there may assume this role. */
  readonly hubAccount: string;
  /** The organization both accounts are in (`aws:PrincipalOrgID`). */
  readonly organizationId: string;
}

/**
 * What the hub reads in a member account through the spoke role: the checks' describe and get calls
 * (EKS, EC2, ECR, IAM), nothing that writes. Actions in the account pass the hub's door, which
 * reaches them through this role too once it is granted there.
 */
export const SPOKE_READ_ACTIONS = [
  'eks:DescribeCluster',
  'eks:ListNodegroups',
  'eks:DescribeNodegroup',
  'eks:DescribeAddon',
  'eks:DescribeAddonVersions',
  'eks:ListAccessEntries',
  'eks:DescribeAccessEntry',
  'eks:ListPodIdentityAssociations',
  'eks:DescribePodIdentityAssociation',
  'ec2:DescribeInstances',
  'ec2:DescribeSubnets',
  'ec2:GetSubnetCidrReservations',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeVpcEndpoints',
  'ec2:DescribeSecurityGroups',
  'ec2:DescribeRouteTables',
  'ec2:DescribeInstanceTypes',
  'ecr:DescribeImages',
  'ecr:DescribeRepositories',
  'ecr:GetRepositoryPolicy',
  'iam:GetRole',
  'iam:GetRolePolicy',
  'iam:ListRolePolicies',
  'iam:ListAttachedRolePolicies',
  'iam:GetInstanceProfile',
  'iam:GetPolicy',
  'iam:GetPolicyVersion',
] as const;

/**
 * The one role the hub's functions assume in a member account and Region. Its trust policy names the
 * hub account and pins the caller: `aws:PrincipalArn` under the fleet's role path in the hub account,
 * `aws:PrincipalOrgID` the organization, `sts:ExternalId` the fleet's name. No user, no other account,
 * no long-lived credential can assume it.
 */
export class SpokeRole extends Construct {
  readonly role: IRole;

  constructor(scope: Construct, id: string, props: SpokeRoleProps) {
    super(scope, id);
    const hubRoles = `arn:${Aws.PARTITION}:iam::${props.hubAccount}:role${hubRolePath(props.fleet)}*`;
    const role = new Role(this, 'Role', {
      // A known name: the hub builds its ARN per account and Region (one role per Region).
      roleName: spokeRoleName(props.fleet, Aws.REGION),
      description: `pod-doctor fleet ${props.fleet}: the hub's functions read (and, through the door, act) here`,
      assumedBy: new AccountPrincipal(props.hubAccount).withConditions({
        ArnLike: { 'aws:PrincipalArn': hubRoles },
        StringEquals: { 'aws:PrincipalOrgID': props.organizationId, 'sts:ExternalId': props.fleet },
      }),
    });
    role.addToPolicy(new PolicyStatement({ actions: [...SPOKE_READ_ACTIONS], resources: ['*'] }));
    acknowledgeDescribeOnly(
      role,
      'Describe/List/Get calls only, on what the checks read in this account (clusters, subnets, images and roles are named by incidents, not known at deploy time)',
    );
    this.role = role;
  }
}
