import { describe, expect, it } from 'vitest';
import { synth } from '../support/synth.js';

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

describe('workflow grants the deployed account needs', () => {
  const { templateJson } = synth({ clusters: [{ name: 'prod-eu', region: 'eu-west-1' }] });
  const resources = templateJson.Resources as Resources;
  const idOf = (type: string, pattern: RegExp) =>
    Object.keys(resources).find((id) => resources[id].Type === type && pattern.test(id)) ?? '';
  /** Every statement of the IAM policies attached to the role `roleId`. */
  const statementsOf = (roleId: string): Statement[] =>
    Object.values(resources)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === roleId),
      )
      .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const actions = (s: Statement) => [s.Action].flat();

  it('the state machine role may use the topic key the sns:publish task needs (GenerateDataKey*, Decrypt)', () => {
    const role = idOf('AWS::IAM::Role', /StateMachineRole/);
    const key = idOf('AWS::KMS::Key', /NotificationsKey/);
    const kms = statementsOf(role).filter((s) => actions(s).some((a) => a.startsWith('kms:')));
    expect(kms).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']),
        Resource: { 'Fn::GetAtt': [key, 'Arn'] },
      }),
    ]);
  });

  it('the approval callback role may answer tasks of this state machine only (SendTaskSuccess/Failure)', () => {
    const role = idOf('AWS::IAM::Role', /ApprovalCallbackFunction.*Role/);
    const machine = idOf('AWS::StepFunctions::StateMachine', /StateMachine/);
    const task = statementsOf(role).filter((s) => actions(s).some((a) => a.startsWith('states:')));
    expect(task).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: expect.arrayContaining(['states:SendTaskSuccess', 'states:SendTaskFailure']),
        Resource: { Ref: machine },
      }),
    ]);
  });

  it('the grant lives in a policy the callback function does not depend on (no dependency cycle)', () => {
    const fn = idOf('AWS::Lambda::Function', /ApprovalCallbackFunction/);
    const resume = Object.keys(resources).find(
      (id) =>
        resources[id].Type === 'AWS::IAM::Policy' && JSON.stringify(resources[id]).includes('states:SendTaskSuccess'),
    );
    expect(resume).toBeDefined();
    const dependsOn = [
      (templateJson.Resources as Record<string, { DependsOn?: string | string[] }>)[fn].DependsOn ?? [],
    ].flat();
    expect(dependsOn).not.toContain(resume);
  });
});
