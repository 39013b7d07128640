import { Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CHANGE_PREFIX } from '../../lambdas/core/contract/incident-table.js';
import type { CheckGroupName as CheckGroup } from '../../lambdas/core/workflow/execution-state.js';
import { eksArn } from './eks-arn.js';
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
    const arns = readArns(Stack.of(this), props.clusters);
    const changes = { table: props.changeIndex };
    const make = (name: string, f: CheckFunction) => {
      const fn = new PodDoctorFunction(this, name, {
        entry: lambdaEntry(f.entry),
        description: `pod-doctor: ${f.description}`,
        logRetention: props.logRetention,
        timeout: Duration.seconds(60),
        memorySize: 512,
        synchronousOnly: true,
        environment: f.environment ?? {},
      });
      for (const st of f.statements) fn.addToRolePolicy(st);
      f.acknowledge(fn.role as IRole);
      return fn;
    };
    this.resolveNode = make('ResolveNode', resolveNodeFunction(arns));
    this.functions = {
      iam: make('CheckIam', iamChecks(arns)),
      ecr: make('CheckEcr', ecrChecks(arns, changes)),
      network: make('CheckNetwork', networkChecks()),
      eks: make('CheckEks', eksChecks(arns)),
      changes: make('CheckChanges', changeChecks(changes)),
    };
  }
}

/** One check function: its handler, what it does, the reads it may make and why cdk-nag may pass them. */
interface CheckFunction {
  readonly entry: string;
  readonly description: string;
  readonly statements: PolicyStatement[];
  readonly acknowledge: (role: IRole) => void;
  readonly environment?: Record<string, string>;
}

/** The ARNs the checks read: the configured clusters' EKS resources, IAM roles, policies and profiles, ECR repositories. */
interface ReadArns {
  readonly clusters: string[];
  readonly addons: string[];
  readonly nodegroups: string[];
  readonly podIdentity: string[];
  readonly instanceProfiles: string[];
  /** Roles, customer managed policies, AWS managed policies. */
  readonly iam: string[];
  readonly repositories: string[];
}

function readArns(stack: Stack, clusters: readonly CheckedCluster[]): ReadArns {
  const iamArn = (resource: string, account?: string) =>
    stack.formatArn({ service: 'iam', region: '', account, resource, resourceName: '*' });
  return {
    clusters: clusters.map((c) => eksArn(stack, 'cluster', c.name, c.region)),
    addons: clusters.map((c) => eksArn(stack, 'addon', `${c.name}/*`, c.region)),
    nodegroups: clusters.map((c) => eksArn(stack, 'nodegroup', `${c.name}/*`, c.region)),
    podIdentity: clusters.map((c) => eksArn(stack, 'podidentityassociation', `${c.name}/*`, c.region)),
    instanceProfiles: [iamArn('instance-profile')],
    iam: [iamArn('role'), iamArn('policy'), iamArn('policy', 'aws')],
    repositories: [
      stack.formatArn({ service: 'ecr', region: '*', account: '*', resource: 'repository', resourceName: '*' }),
    ],
  };
}

/** EKS reads on the configured clusters' resources (none when no cluster is configured). */
const eksRead = (actions: string[], resources: string[]) =>
  resources.length ? [new PolicyStatement({ actions, resources })] : [];

/** Query on the change index only: the leading key must be a CHANGE# partition. */
function readChanges(changes: { table: ITableV2 }) {
  return {
    statement: new PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [changes.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${CHANGE_PREFIX}*`] } },
    }),
    environment: { CHANGE_TABLE_NAME: changes.table.tableName },
  };
}

function resolveNodeFunction(arns: ReadArns): CheckFunction {
  return {
    entry: 'resolve-node',
    description: 'resolve a node to its instance, role, subnet and security groups',
    statements: [
      new PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }),
      new PolicyStatement({ actions: ['iam:GetInstanceProfile'], resources: arns.instanceProfiles }),
    ],
    acknowledge: (role) => {
      acknowledgeDescribeOnly(role);
      acknowledgeInstanceProfiles(role, arns.instanceProfiles);
    },
  };
}

function iamChecks(arns: ReadArns): CheckFunction {
  return {
    entry: 'check-iam',
    description: 'IAM checks (node role ECR read, VPC CNI policy)',
    statements: [
      new PolicyStatement({
        actions: ['iam:ListAttachedRolePolicies', 'iam:ListRolePolicies', 'iam:GetRolePolicy'],
        resources: [arns.iam[0]],
      }),
      new PolicyStatement({ actions: ['iam:GetPolicy', 'iam:GetPolicyVersion'], resources: arns.iam.slice(1) }),
      ...eksRead(['eks:DescribeAddon'], arns.addons),
      ...eksRead(['eks:ListPodIdentityAssociations'], arns.clusters),
      ...eksRead(['eks:DescribePodIdentityAssociation'], arns.podIdentity),
    ],
    acknowledge: (role) => {
      acknowledgeIamRead(role, arns.iam);
      acknowledgeClusterResources(role, 'addon', arns.addons);
      acknowledgeClusterResources(role, 'podidentityassociation', arns.podIdentity);
    },
  };
}

function ecrChecks(arns: ReadArns, changes: { table: ITableV2 }): CheckFunction {
  const index = readChanges(changes);
  return {
    entry: 'check-ecr',
    description: 'ECR checks (repository policy, image exists, recent deletions)',
    statements: [
      new PolicyStatement({
        actions: ['ecr:GetRepositoryPolicy', 'ecr:DescribeImages', 'ecr:DescribeRepositories'],
        resources: arns.repositories,
      }),
      index.statement,
    ],
    acknowledge: (role) => acknowledgeAnyRepository(role, arns.repositories),
    environment: index.environment,
  };
}

function networkChecks(): CheckFunction {
  return {
    entry: 'check-network',
    description: 'VPC checks (ECR endpoints, endpoint security groups, S3 gateway, subnet free IPs and /28 blocks)',
    statements: [
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
    acknowledge: (role) => acknowledgeDescribeOnly(role),
  };
}

function eksChecks(arns: ReadArns): CheckFunction {
  return {
    entry: 'check-eks',
    description: 'EKS checks (add-on versions, node AMI age, ENI capacity)',
    statements: [
      ...eksRead(['eks:DescribeCluster'], arns.clusters),
      ...eksRead(['eks:DescribeAddon'], arns.addons),
      ...eksRead(['eks:DescribeNodegroup'], arns.nodegroups),
      new PolicyStatement({
        actions: ['eks:DescribeAddonVersions', 'ec2:DescribeInstanceTypes', 'ec2:DescribeNetworkInterfaces'],
        resources: ['*'],
      }),
    ],
    acknowledge: (role) => {
      acknowledgeDescribeOnly(
        role,
        'eks:DescribeAddonVersions, ec2:DescribeInstanceTypes and ec2:DescribeNetworkInterfaces do not support resource-level permissions.',
      );
      acknowledgeClusterResources(role, 'addon', arns.addons);
      acknowledgeClusterResources(role, 'nodegroup', arns.nodegroups);
    },
  };
}

function changeChecks(changes: { table: ITableV2 }): CheckFunction {
  const index = readChanges(changes);
  return {
    entry: 'check-changes',
    description: 'change attribution from the change index (CloudTrail events delivered by EventBridge)',
    statements: [index.statement],
    acknowledge: () => {},
    environment: index.environment,
  };
}
