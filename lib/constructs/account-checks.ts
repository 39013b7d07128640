import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { CheckGroup } from '../../lambdas/aws/checks/groups.js';
import { CHANGE_PREFIX } from '../../lambdas/aws/incident-table.js';
import {
  acknowledgeAnyRepository,
  acknowledgeClusterResources,
  acknowledgeDescribeOnly,
  acknowledgeIamRead,
  acknowledgeInstanceProfiles,
} from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** A cluster whose resources the checks may read. */
export interface CheckedCluster {
  readonly name: string;
  /** @default the stack's region */
  readonly region?: string;
}

/** Props of {@link AccountChecks}. */
export interface AccountChecksProps {
  /** Clusters whose EKS resources (add-ons, node groups, Pod Identity) the checks may read. */
  readonly clusters: readonly CheckedCluster[];
  /** Retention of the check functions' logs. */
  readonly logRetention: RetentionDays;
  /** The incident table, whose `CHANGE#` items index breaking changes (read by the ecr and changes checks). */
  readonly changeIndex: ITableV2;
}

/**
 * The read-only Lambda checks of IAM, ECR, VPC endpoints, subnets, EKS and CloudTrail, one function
 * per check group, each with only the read actions its group calls.
 */
export class AccountChecks extends Construct {
  /** Check functions by group. */
  readonly functions: Readonly<Record<CheckGroup, IFunction>>;
  /** Resolves a node name or instance id to instance, role, subnet, security groups. */
  readonly resolveNode: IFunction;

  constructor(scope: Construct, id: string, props: AccountChecksProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const eksArn = (resource: string, name: string, region?: string) =>
      stack.formatArn({
        service: 'eks',
        resource,
        resourceName: name,
        region: region ?? stack.region,
        arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
      });
    const clusterArns = props.clusters.map((c) => eksArn('cluster', c.name, c.region));
    const addonArns = props.clusters.map((c) => eksArn('addon', `${c.name}/*`, c.region));
    const nodegroupArns = props.clusters.map((c) => eksArn('nodegroup', `${c.name}/*`, c.region));
    const podIdentityArns = props.clusters.map((c) => eksArn('podidentityassociation', `${c.name}/*`, c.region));
    const iamArn = (resource: string, account?: string) =>
      stack.formatArn({ service: 'iam', region: '', account, resource, resourceName: '*' });
    const instanceProfiles = [iamArn('instance-profile')];
    const iamReads = [iamArn('role'), iamArn('policy'), iamArn('policy', 'aws')];
    const repositories = [
      stack.formatArn({ service: 'ecr', region: '*', account: '*', resource: 'repository', resourceName: '*' }),
    ];

    const make = (
      name: string,
      entry: string,
      description: string,
      statements: PolicyStatement[],
      acknowledge: (role: IRole) => void,
      environment: Record<string, string> = {},
    ) => {
      const fn = new PodDoctorFunction(this, name, {
        entry: lambdaEntry(entry),
        description: `pod-doctor: ${description}`,
        logRetention: props.logRetention,
        timeout: Duration.seconds(60),
        memorySize: 512,
        synchronousOnly: true,
        environment,
      });
      for (const s of statements) fn.addToRolePolicy(s);
      acknowledge(fn.role as IRole);
      return fn;
    };
    // Query on the change index only: the leading key must be a CHANGE# partition.
    const readChanges = () =>
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [props.changeIndex.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CHANGE_PREFIX}*`] } },
      });
    const changeEnv = { CHANGE_TABLE_NAME: props.changeIndex.tableName };
    const eks = (actions: string[], resources: string[]) =>
      resources.length ? [new PolicyStatement({ actions, resources })] : [];

    this.resolveNode = make(
      'ResolveNode',
      'resolve-node',
      'resolve a node to its instance, role, subnet and security groups',
      [
        new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }),
        new PolicyStatement({ actions: ['iam:GetInstanceProfile'], resources: instanceProfiles }),
      ],
      (role) => {
        acknowledgeDescribeOnly(role);
        acknowledgeInstanceProfiles(role, instanceProfiles);
      },
    );
    const functions = {
      iam: make(
        'CheckIam',
        'check-iam',
        'IAM checks (node role ECR read, VPC CNI policy)',
        [
          new PolicyStatement({
            actions: ['iam:ListAttachedRolePolicies', 'iam:ListRolePolicies', 'iam:GetRolePolicy'],
            resources: [iamReads[0]],
          }),
          new PolicyStatement({
            actions: ['iam:GetPolicy', 'iam:GetPolicyVersion'],
            resources: iamReads.slice(1),
          }),
          ...eks(['eks:DescribeAddon'], addonArns),
          ...eks(['eks:ListPodIdentityAssociations'], clusterArns),
          ...eks(['eks:DescribePodIdentityAssociation'], podIdentityArns),
        ],
        (role) => {
          acknowledgeIamRead(role, iamReads);
          acknowledgeClusterResources(role, 'addon', addonArns);
          acknowledgeClusterResources(role, 'podidentityassociation', podIdentityArns);
        },
      ),
      ecr: make(
        'CheckEcr',
        'check-ecr',
        'ECR checks (repository policy, image exists, recent deletions)',
        [
          new PolicyStatement({
            actions: ['ecr:GetRepositoryPolicy', 'ecr:DescribeImages', 'ecr:DescribeRepositories'],
            resources: repositories,
          }),
          readChanges(),
        ],
        (role) => acknowledgeAnyRepository(role, repositories),
        changeEnv,
      ),
      network: make(
        'CheckNetwork',
        'check-network',
        'VPC checks (ECR endpoints, endpoint security groups, S3 gateway, subnet free IPs and /28 blocks)',
        [
          new PolicyStatement({
            actions: [
              'ec2:DescribeRouteTables',
              'ec2:DescribeVpcEndpoints',
              'ec2:DescribeSecurityGroups',
              'ec2:DescribeSubnets',
              'ec2:DescribeNetworkInterfaces',
              'ec2:GetSubnetCidrReservations',
            ],
            resources: ['*'],
          }),
        ],
        (role) => acknowledgeDescribeOnly(role),
      ),
      eks: make(
        'CheckEks',
        'check-eks',
        'EKS checks (add-on versions, node AMI age, ENI capacity)',
        [
          ...eks(['eks:DescribeCluster'], clusterArns),
          ...eks(['eks:DescribeAddon'], addonArns),
          ...eks(['eks:DescribeNodegroup'], nodegroupArns),
          new PolicyStatement({
            actions: ['eks:DescribeAddonVersions', 'ec2:DescribeInstanceTypes', 'ec2:DescribeNetworkInterfaces'],
            resources: ['*'],
          }),
        ],
        (role) => {
          acknowledgeDescribeOnly(
            role,
            'eks:DescribeAddonVersions, ec2:DescribeInstanceTypes and ec2:DescribeNetworkInterfaces do not support resource-level permissions.',
          );
          acknowledgeClusterResources(role, 'addon', addonArns);
          acknowledgeClusterResources(role, 'nodegroup', nodegroupArns);
        },
      ),
      changes: make(
        'CheckChanges',
        'check-changes',
        'change attribution from the change index (CloudTrail events delivered by EventBridge)',
        [readChanges()],
        () => {},
        changeEnv,
      ),
    } satisfies Record<CheckGroup, IFunction>;
    this.functions = functions;
  }
}
