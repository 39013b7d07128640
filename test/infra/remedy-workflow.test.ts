import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PodDoctor, type PodDoctorProps } from '../../lib/pod-doctor.js';
import { configDocument } from '../support/config-document.js';
import { identityStatements } from '../support/iam.js';

/**
 * Account remedies in the deployed stack: the door's configuration (its place in the workflow and
 * its grants: test/infra/door-graph.test.ts).
 */

const REMEDY_WRITES = [
  'ec2:AuthorizeSecurityGroupIngress',
  'ec2:CreateSubnetCidrReservation',
  'ec2:DeleteSubnetCidrReservation',
  'ec2:RevokeSecurityGroupIngress',
  'ecr:CreatePullThroughCacheRule',
  'ecr:DeletePullThroughCacheRule',
  'iam:AttachRolePolicy',
  'iam:DetachRolePolicy',
];

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

function build(props: PodDoctorProps) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
  new PodDoctor(stack, 'PodDoctor', props);
  return Template.fromStack(stack).toJSON() as { Resources: Resources };
}

describe('account remedies in the deployed stack', () => {
  const json = build({
    clusters: [
      {
        name: 'prod-eu',
        remediation: {
          roles: ['eks-node-role'],
          endpointSecurityGroups: ['sg-0fedcba9876543210'],
          subnets: ['subnet-0a1b2c3d4e5f67890'],
          pullThroughCache: {
            credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/hub-Xy12Ab',
          },
          vpcCniAddon: false,
        },
      },
    ],
    remedies: { 'cni-permissions': 'auto', 'cidr-fragmentation': 'dry-run' },
  });
  const resources = json.Resources;
  const doorFunctionId = Object.keys(resources).find(
    (id) => resources[id].Type === 'AWS::Lambda::Function' && /DoorFunction/.test(id),
  ) as string;

  it('the configuration carries the remedy tiers and each cluster remediation scope; the door reads it', () => {
    const env = (resources[doorFunctionId].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['CONFIG_TABLE_NAME', 'CONFIG_VERSION']));
    const config = configDocument(json) as unknown as Record<string, unknown>;
    expect(config.remedies).toEqual({ 'cni-permissions': 'auto', 'cidr-fragmentation': 'dry-run' });
    // The stack has the Kubernetes function: Decide plans cluster remedies (else: recommended).
    expect(config.clusterAccess).toBe(true);
    expect(config.clusters).toEqual([
      expect.objectContaining({
        name: 'prod-eu',
        remediation: {
          roles: ['eks-node-role'],
          endpointSecurityGroups: ['sg-0fedcba9876543210'],
          subnets: ['subnet-0a1b2c3d4e5f67890'],
          pullThroughCache: {
            ecrRepositoryPrefix: 'docker-hub',
            credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:ecr-pullthroughcache/hub-Xy12Ab',
          },
          vpcCniAddon: false,
        },
      }),
    ]);
  });

  it("every remedy write is held by the door's role, and by no other role", () => {
    const doorRole = (resources[doorFunctionId].Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const roleOf = (policyId: string) =>
      ((resources[policyId].Properties.Roles as { Ref: string }[] | undefined) ?? []).map((r) => r.Ref);
    const holders = identityStatements(json).filter((s) => s.Action.some((a) => REMEDY_WRITES.includes(a)));
    expect(new Set(holders.flatMap((s) => roleOf(s.logicalId)))).toEqual(new Set([doorRole]));
    expect(new Set(holders.flatMap((s) => s.Action.filter((a) => REMEDY_WRITES.includes(a))))).toEqual(
      new Set(REMEDY_WRITES),
    );
  });
});
