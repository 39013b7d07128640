import { describe, expect, it } from 'vitest';
import { APPROVAL_CONCURRENCY } from '../../lib/constructs/workflow/approval-endpoint.js';
import { configDocument } from '../support/config-document.js';
import { synth } from '../support/synth.js';

/** Issue 12, finding 12 (and execution logs without execution data), on the synthesized template. */
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

describe('finding 12: who may publish, who may call, what the logs hold', () => {
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

  it('the topic key serves EventBridge only for this account (aws:SourceAccount)', () => {
    for (const [, k] of resources(templateJson, 'AWS::KMS::Key')) {
      const events = (k.Properties.KeyPolicy as { Statement: Statement[] }).Statement.filter(
        (s) => s.Principal?.Service === 'events.amazonaws.com',
      );
      for (const s of events) expect(JSON.stringify(s.Condition)).toContain('aws:SourceAccount');
    }
  });

  it('the public approval function has reserved concurrency', () => {
    const urls = resources(templateJson, 'AWS::Lambda::Url');
    expect(urls).toHaveLength(1);
    const target = (urls[0][1].Properties.TargetFunctionArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const fn = (templateJson.Resources as Record<string, { Properties: Record<string, unknown> }>)[target];
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(APPROVAL_CONCURRENCY);
  });

  it('execution logs carry no execution data (task tokens and command output stay in the history)', () => {
    const [[, sm]] = resources(templateJson, 'AWS::StepFunctions::StateMachine');
    expect(sm.Properties.LoggingConfiguration).toMatchObject({ IncludeExecutionData: false });
  });

  it('the configured trusted sandbox images reach the ingest and workflow functions (their configuration)', () => {
    expect(configDocument(templateJson).trustedSandboxImages).toEqual(['mirror.example.com/eks/pause']);
  });
});
