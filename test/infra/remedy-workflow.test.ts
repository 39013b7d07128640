import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PodDoctor, type PodDoctorProps } from '../../lib/pod-doctor.js';
import { configDocument } from '../support/config-document.js';
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
          vpcCniAddon: false,
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

  it('the configuration carries the remedy tiers and each cluster remediation scope; the remedy function reads it', () => {
    const env = (resources[remedyFunctionId].Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
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

  type State = { Type: string; Next?: string; Default?: string; Parameters?: Record<string, unknown> };
  type Choice = { Next: string; Or?: { Variable: string; StringEquals: string }[] };
  const state = (d: typeof definition, name: string) => d.States[name] as State & { Choices?: Choice[] };
  const kubernetesFunctionId = Object.keys(resources).find(
    (id) => resources[id].Type === 'AWS::Lambda::Function' && /KubernetesFunction/.test(id),
  ) as string;

  it('"Act, ask or report?" enters the remedy first; "Account or cluster remedy?" routes on the target kind', () => {
    expect(definition.States['Act, ask or report?'].Choices?.[0].Next).toBe('Account or cluster remedy?');
    for (const choice of ['Account or cluster remedy?', 'Apply to account or cluster?']) {
      const c = state(definition, choice);
      expect(c.Choices?.[0].Or?.map((x) => [x.Variable, x.StringEquals])).toEqual([
        ['$.plan.remedy.target.kind', 'restart-aws-node'],
        ['$.plan.remedy.target.kind', 'enable-windows-ipam'],
      ]);
      const [cluster, account] = choice.startsWith('Apply')
        ? ['Apply cluster remedy', 'Apply remedy']
        : ['Prepare cluster remedy', 'Prepare remedy'];
      expect([c.Choices?.[0].Next, c.Default]).toEqual([cluster, account]);
    }
    expect(definition.States['Request remedy approval'].Type).toBe('Task');
  });

  it('account remedies run in the remedy function, cluster remedies in the Kubernetes function, with the same record fields', () => {
    for (const s of ['Prepare remedy', 'Apply remedy'])
      expect(definition.States[s].Parameters?.FunctionName, s).toContain(remedyFunctionId);
    for (const [s, phase] of [
      ['Prepare cluster remedy', 'prepare'],
      ['Apply cluster remedy', 'apply'],
    ]) {
      const task = state(definition, s) as State & {
        ResultSelector: Record<string, string>;
        Catch: { Next: string }[];
      };
      expect(task.Parameters?.FunctionName, s).toContain(kubernetesFunctionId);
      // The node is the one Resolve node found in EC2 ($.node), never text of the incident.
      expect(task.Parameters?.Payload).toEqual({
        action: 'remedy',
        phase,
        'cluster.$': '$.cluster',
        'node.$': '$.node',
        'remedy.$': '$.plan.remedy.target',
      });
      expect(task.ResultSelector).toEqual(
        Object.fromEntries(
          ['remedy', 'change', 'status', 'reason', 'diff', 'before', 'after', 'applied', 'verification'].map((f) => [
            `${f}.$`,
            `$.Payload.record.${f}`,
          ]),
        ),
      );
      expect(task.Catch.map((c) => c.Next)).toEqual([`${s} failed`]);
    }
    const prepare = state(definition, 'Prepare remedy') as State & { ResultSelector: Record<string, string> };
    expect(Object.keys(prepare.ResultSelector)).toEqual(
      Object.keys((state(definition, 'Prepare cluster remedy') as typeof prepare).ResultSelector),
    );
  });

  it('the follow-up remedy: after "Remedy verified?", the first record is kept and the follow-up runs through the same states', () => {
    const verified = state(definition, 'Remedy verified?');
    expect(verified.Choices?.[0].Next).toBe('Follow-up remedy?');
    expect(state(definition, 'Keep first remedy')).toMatchObject({
      Parameters: { 'status.$': '$.remedyApplied.status', 'diff.$': '$.remedyApplied.diff', 'plan.$': '$.plan.remedy' },
      ResultPath: '$.remedyFirst',
      Next: 'Follow-up as remedy',
    });
    expect(state(definition, 'Follow-up as remedy')).toMatchObject({
      InputPath: '$.plan.remedy.followUp',
      ResultPath: '$.plan.remedy',
      Next: 'Account or cluster remedy?',
    });
  });

  it('the state machine role may invoke the Kubernetes function (the remedy tasks need nothing broader)', () => {
    const statements = identityStatements(json).filter((s) => s.Action.includes('lambda:InvokeFunction'));
    const machineRole = (resources[machineId].Properties.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const ofMachine = statements.filter((s) =>
      ((resources[s.logicalId].Properties.Roles as { Ref: string }[] | undefined) ?? []).some(
        (r) => r.Ref === machineRole,
      ),
    );
    expect(JSON.stringify(ofMachine.map((s) => s.Resource))).toContain(kubernetesFunctionId);
    expect(ofMachine.flatMap((s) => [s.Resource].flat()).filter((r) => r === '*')).toEqual([]);
  });

  it('no cluster lists a remediation scope: no remedy function; the remedy states run cluster remedies only', () => {
    const bare = build({ clusters: [{ name: 'prod-eu' }], remedies: { 'cni-permissions': 'auto' } });
    const ids = Object.keys(bare.Resources);
    expect(ids.filter((id) => /Remedy/.test(id))).toEqual([]);
    const [machine] = ids.filter((id) => bare.Resources[id].Type === 'AWS::StepFunctions::StateMachine');
    const d = JSON.parse(flatten(bare.Resources[machine].Properties.DefinitionString)) as typeof definition;
    const states = Object.keys(d.States);
    expect(states).not.toContain('Prepare remedy');
    expect(states).not.toContain('Account or cluster remedy?');
    expect(states).toEqual(expect.arrayContaining(['Prepare cluster remedy', 'Apply cluster remedy']));
    // The remedy branch admits only cluster kinds: an account target has no function to run in.
    expect(JSON.stringify(d.States['Act, ask or report?'].Choices?.[0])).toContain('"restart-aws-node"');
    expect(d.States['Act, ask or report?'].Choices?.[0].Next).toBe('Prepare cluster remedy');
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
