import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PodDoctor, type PodDoctorProps } from '../../lib/pod-doctor.js';
import { identityStatements } from '../support/iam.js';

/** The remedy function in the deployed stack: its configuration, its place in the workflow, its grants. */

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

/** A CloudFormation string (literal or Fn::Join) with every token replaced by its logical id (or TOKEN). */
function flatten(v: unknown): string {
  if (typeof v === 'string') return v;
  const join = (v as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) return 'TOKEN';
  return join[1]
    .map((p) => (typeof p === 'string' ? p : ((p as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0] ?? 'TOKEN')))
    .join(join[0]);
}

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
        },
      },
    ],
    remedies: { 'cni-permissions': 'auto', 'cidr-fragmentation': 'dry-run' },
  });
  const resources = json.Resources;
  const remedyFunctionId = Object.keys(resources).find(
    (id) => resources[id].Type === 'AWS::Lambda::Function' && /Remedy/.test(id),
  ) as string;
  const remedyRoleId = (resources[remedyFunctionId].Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
  const [machineId] = Object.keys(resources).filter((id) => resources[id].Type === 'AWS::StepFunctions::StateMachine');
  const definition = JSON.parse(flatten(resources[machineId].Properties.DefinitionString)) as {
    States: Record<string, { Type: string; Parameters?: { FunctionName?: string }; Choices?: { Next: string }[] }>;
  };

  it('WORKFLOW_CONFIG carries the remedy tiers and each cluster remediation scope', () => {
    const env = (resources[remedyFunctionId].Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    const config = JSON.parse(flatten(env.WORKFLOW_CONFIG)) as Record<string, unknown>;
    expect(config.remedies).toEqual({ 'cni-permissions': 'auto', 'cidr-fragmentation': 'dry-run' });
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
        },
      }),
    ]);
  });

  it('"Prepare remedy" and "Apply remedy" invoke the remedy function; the remedy is the first branch of "Act, ask or report?"', () => {
    for (const state of ['Prepare remedy', 'Apply remedy'])
      expect(definition.States[state].Parameters?.FunctionName, state).toContain(remedyFunctionId);
    expect(definition.States['Act, ask or report?'].Choices?.[0].Next).toBe('Prepare remedy');
    expect(definition.States['Request remedy approval'].Type).toBe('Task');
  });

  it('no cluster lists a remediation scope: no remedy function and no remedy state', () => {
    const bare = build({ clusters: [{ name: 'prod-eu' }], remedies: { 'cni-permissions': 'auto' } });
    const ids = Object.keys(bare.Resources);
    expect(ids.filter((id) => /Remedy/.test(id))).toEqual([]);
    const [machine] = ids.filter((id) => bare.Resources[id].Type === 'AWS::StepFunctions::StateMachine');
    const states = Object.keys(JSON.parse(flatten(bare.Resources[machine].Properties.DefinitionString)).States);
    expect(states.filter((s) => /remedy/i.test(s))).toEqual([]);
    expect(states).toContain('Act, ask or report?');
  });

  it('only the remedy function role holds any remedy write; it holds nothing else that writes', () => {
    const statements = identityStatements(json);
    const holders = statements.filter((s) => s.Action.some((a) => REMEDY_WRITES.includes(a)));
    const roleOf = (policyId: string) =>
      ((resources[policyId].Properties.Roles as { Ref: string }[] | undefined) ?? []).map((r) => r.Ref);
    expect(new Set(holders.flatMap((s) => roleOf(s.logicalId)))).toEqual(new Set([remedyRoleId]));
    const remedyWrites = statements
      .filter((s) => roleOf(s.logicalId).includes(remedyRoleId))
      .flatMap((s) => s.Action)
      .filter((a) => !/:(Describe|Get|List|Simulate|Validate)|^logs:|^xray:/.test(a));
    expect([...new Set(remedyWrites)].sort()).toEqual(REMEDY_WRITES);
  });
});
