import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/config-document.js';
import { synth } from '../support/synth.js';

/** Who may publish and call, and execution logs without execution data, on the synthesized template. */
const config = {
  clusters: [{ name: 'prod-eu', region: 'eu-west-1', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] }],
  notificationEmails: ['oncall@example.com'],
  trustedSandboxImages: ['mirror.example.com/eks/pause'],
};

type Statement = { Effect: string; Principal?: { Service?: string }; Condition?: Record<string, unknown> };
const resources = (t: Record<string, unknown>, type: string) =>
  Object.entries((t.Resources ?? {}) as Record<string, { Type: string; Properties: Record<string, unknown> }>).filter(
    ([, r]) => r.Type === type,
  );

describe('who may publish, who may call, what the logs hold', () => {
  const { templateJson } = synth(config);

  it('EventBridge may publish to the topic only for the execution-failed rule (aws:SourceArn)', () => {
    const allows = resources(templateJson, 'AWS::SNS::TopicPolicy').flatMap(([, r]) =>
      ((r.Properties.PolicyDocument as { Statement: Statement[] }).Statement ?? []).filter(
        (s) => s.Effect === 'Allow' && s.Principal?.Service === 'events.amazonaws.com',
      ),
    );
    expect(allows.length).toBeGreaterThan(0);
    for (const s of allows)
      expect(JSON.stringify(s.Condition)).toMatch(
        /"aws:SourceArn":\{"Fn::GetAtt":\["\w*ExecutionFailedRule\w*","Arn"\]/,
      );
  });

  it('the topic key serves CloudWatch for this account’s alarms only, EventBridge without the keys it does not send', () => {
    const [[, key]] = resources(templateJson, 'AWS::KMS::Key');
    const of = (service: string) =>
      (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement.filter(
        (s) => s.Principal?.Service === service,
      );
    const [cloudwatch] = of('cloudwatch.amazonaws.com');
    expect(JSON.stringify(cloudwatch.Condition)).toContain('aws:SourceAccount');
    expect(JSON.stringify(cloudwatch.Condition)).toContain(':alarm:*');
    const [events] = of('events.amazonaws.com');
    expect(events.Condition).toBeUndefined();
  });

  it('no function reserves concurrency unless asked, with the reason recorded (a new account’s quota of 10 refuses any)', () => {
    const reserving = resources(templateJson, 'AWS::Lambda::Function').filter(
      ([, f]) => f.Properties.ReservedConcurrentExecutions !== undefined,
    );
    expect(reserving).toEqual([]);
    const asked = synth(
      { ...config, approvalReservedConcurrency: { executions: 5, reason: 'account quota raised to 1,000' } },
      { deploy: true },
    ).templateJson;
    const urls = resources(asked, 'AWS::Lambda::Url');
    const target = (urls[0][1].Properties.TargetFunctionArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const fn = (asked.Resources as Record<string, { Properties: Record<string, unknown>; Metadata: object }>)[target];
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(5);
    expect(fn.Metadata).toMatchObject({ PodDoctorReservedConcurrency: 'account quota raised to 1,000' });
    expect(() => synth({ approvalReservedConcurrency: { executions: 5, reason: '' } })).toThrow(
      /approvalReservedConcurrency\.reason: must say why/,
    );
  });

  it('execution logs carry no execution data (task tokens and command output stay in the history)', () => {
    const [[, sm]] = resources(templateJson, 'AWS::StepFunctions::StateMachine');
    expect(sm.Properties.LoggingConfiguration).toMatchObject({ IncludeExecutionData: false });
  });

  it('the configured trusted sandbox images reach the ingest and workflow functions (their configuration)', () => {
    expect(configDocument(templateJson).trustedSandboxImages).toEqual(['mirror.example.com/eks/pause']);
  });
});
