import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config.js';
import { grantRemedies } from '../../lib/constructs/remedy-grants.js';
import { identityStatements } from '../support/iam.js';

const ROLE = 'eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF';

function statementsFor(clusters: unknown) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'S', { env: { account: '111122223333', region: 'eu-west-1' } });
  // The grants the door's role gets for the account remedies (lib/constructs/door-function.ts).
  const role = new Role(stack, 'Remedy', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  grantRemedies(role, role, parseConfig({ clusters }).clusters);
  return identityStatements(Template.fromStack(stack).toJSON())
    .filter((s) => /Remedy/.test(s.logicalId))
    .map((s) => ({ ...s, Resource: plain(s.Resource), Condition: plain(s.Condition) as typeof s.Condition }));
}

/** ARNs with the partition filled in (the template joins `arn:` with Ref AWS::Partition). */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o['Fn::Join']) {
      const [sep, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => plain(p)).join(sep);
    }
    if (o.Ref === 'AWS::Partition') return 'aws';
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, plain(x)]));
  }
  return v;
}

const READ = /:(Describe|Get|List|Simulate|Validate)|^logs:|^xray:/;
const writes = (statements: ReturnType<typeof statementsFor>) =>
  statements.filter((s) => s.Action.some((a) => !READ.test(a)));

describe("the door's account remedy grants", () => {
  const statements = statementsFor([
    {
      name: 'prod-eu',
      remediation: {
        roles: [ROLE, 'eks/AmazonEKSVPCCNIRole'],
        endpointSecurityGroups: ['sg-0fedcba9876543210'],
        subnets: ['subnet-0a1b2c3d4e5f67890'],
        pullThroughCache: {
          credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/docker-hub-Xy12Ab',
        },
      },
    },
    { name: 'prod-us', region: 'us-west-2', remediation: { subnets: ['subnet-0ffff000011112222'] } },
    { name: 'batch-eu', remediation: { vpcCniAddon: true } },
  ]);
  const find = (action: string) => statements.filter((s) => s.Action.includes(action));

  it('no action is a wildcard', () => {
    expect(statements.flatMap((s) => s.Action).filter((a) => a.includes('*'))).toEqual([]);
  });

  it('AttachRolePolicy / DetachRolePolicy: only the listed roles, only the three AWS managed policies', () => {
    const [s, ...more] = find('iam:AttachRolePolicy');
    expect(more).toEqual([]);
    expect(s.Action.sort()).toEqual(['iam:AttachRolePolicy', 'iam:DetachRolePolicy']);
    expect(s.Resource).toEqual([
      'arn:aws:iam::111122223333:role/eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF',
      'arn:aws:iam::111122223333:role/eks/AmazonEKSVPCCNIRole',
    ]);
    expect(s.Condition).toEqual({
      ArnEquals: {
        'iam:PolicyARN': [
          'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
          'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly',
          'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy',
        ],
      },
    });
    expect(find('iam:SimulatePrincipalPolicy')[0].Resource).toEqual(s.Resource);
  });

  it('security group ingress: only the listed endpoint security groups', () => {
    const [s, ...more] = find('ec2:AuthorizeSecurityGroupIngress');
    expect(more).toEqual([]);
    expect(s.Action.sort()).toEqual(['ec2:AuthorizeSecurityGroupIngress', 'ec2:RevokeSecurityGroupIngress']);
    expect(s.Resource).toEqual('arn:aws:ec2:eu-west-1:111122223333:security-group/sg-0fedcba9876543210');
  });

  it('CIDR reservations: created on the listed subnets (in their regions); deleted only within the clusters regions', () => {
    expect(find('ec2:CreateSubnetCidrReservation')[0].Resource).toEqual([
      'arn:aws:ec2:eu-west-1:111122223333:subnet/subnet-0a1b2c3d4e5f67890',
      'arn:aws:ec2:us-west-2:111122223333:subnet/subnet-0ffff000011112222',
    ]);
    const del = find('ec2:DeleteSubnetCidrReservation')[0];
    expect(del.Action).toEqual('ec2:DeleteSubnetCidrReservation'.split(' '));
    expect(del.Condition).toEqual({ StringEquals: { 'ec2:Region': ['eu-west-1', 'us-west-2'] } });
  });

  it('pull-through cache rule: no resource type, so only in the Regions of the clusters that configure one', () => {
    const [s, ...more] = find('ecr:CreatePullThroughCacheRule');
    expect(more).toEqual([]);
    expect(s.Action.sort()).toEqual([
      'ecr:CreatePullThroughCacheRule',
      'ecr:DeletePullThroughCacheRule',
      'ecr:DescribePullThroughCacheRules',
      'ecr:ValidatePullThroughCacheRule',
    ]);
    expect(s.Resource).toEqual('*');
    expect(s.Condition).toEqual({ StringEquals: { 'aws:RequestedRegion': ['eu-west-1'] } });
  });

  it('the pull-through re-check simulates only the node roles of the clusters that configure a rule', () => {
    const withRoles = statementsFor([
      {
        name: 'prod-eu',
        nodeRoleArns: [`arn:aws:iam::111122223333:role/${ROLE}`],
        remediation: {
          pullThroughCache: {
            credentialArn:
              'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/docker-hub-Xy12Ab',
          },
        },
      },
      { name: 'other', nodeRoleArns: ['arn:aws:iam::111122223333:role/other-node-role'] },
    ]);
    const sims = withRoles.filter((x) => x.Action.includes('iam:SimulatePrincipalPolicy'));
    expect(sims.map((x) => x.Resource)).toEqual([`arn:aws:iam::111122223333:role/${ROLE}`]);
  });

  it('every write is one of the remedy writes', () => {
    const actions = writes(statements).flatMap((s) => s.Action.filter((a) => !READ.test(a)));
    expect([...new Set(actions)].sort()).toEqual([
      'ec2:AuthorizeSecurityGroupIngress',
      'ec2:CreateSubnetCidrReservation',
      'ec2:DeleteSubnetCidrReservation',
      'ec2:RevokeSecurityGroupIngress',
      'ecr:CreatePullThroughCacheRule',
      'ecr:DeletePullThroughCacheRule',
      'eks:UpdateAddon',
      'iam:AttachRolePolicy',
      'iam:DetachRolePolicy',
    ]);
  });

  it('UpdateAddon: only the vpc-cni add-on of the clusters that set remediation.vpcCniAddon', () => {
    const [s, ...more] = find('eks:UpdateAddon');
    expect(more).toEqual([]);
    expect(s.Action.sort()).toEqual(['eks:DescribeAddon', 'eks:UpdateAddon']);
    // The add-on ARN ends in an id EKS generates: the cluster and the add-on name are what scope it.
    expect(s.Resource).toEqual('arn:aws:eks:eu-west-1:111122223333:addon/batch-eu/vpc-cni/*');
    expect(s.Condition).toBeUndefined();
    // Its re-check reads the node subnet's usage.
    expect(find('ec2:DescribeNetworkInterfaces')).toHaveLength(1);
    const onlyAddon = statementsFor([{ name: 'batch-eu', remediation: { vpcCniAddon: true } }]);
    expect(writes(onlyAddon).flatMap((x) => x.Action.filter((a) => !READ.test(a)))).toEqual(['eks:UpdateAddon']);
    expect(onlyAddon.some((x) => x.Action.includes('ec2:DescribeSubnets'))).toBe(true);
  });

  it('a cluster that lists nothing gets no write at all', () => {
    expect(writes(statementsFor([{ name: 'prod-eu' }]))).toEqual([]);
  });
});
