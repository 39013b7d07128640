import { describe, expect, it } from 'vitest';
import { sendCommandTagConditions } from '../../lib/constructs/node-commands.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('incident workflow infrastructure', () => {
  const { template, templateJson } = synth({
    clusters: [{ name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] }],
  });
  const sm = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0] as {
    Properties: Record<string, unknown>;
  };

  it('is a Standard state machine with tracing; execution logs at ERROR without execution data (no task token, no node output)', () => {
    expect(sm.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
    });
  });

  it('may send only the project documents, and to instances only of the configured clusters', () => {
    const sends = identityStatements(templateJson).filter((s) => s.Action.includes('ssm:SendCommand'));
    expect(sends.length).toBeGreaterThanOrEqual(2);
    for (const s of sends) {
      const res = JSON.stringify(s.Resource);
      expect(res).not.toMatch(/AWS-RunShellScript|document\/\*/);
      if (res.includes(':instance/')) expect(sendCommandTagConditions(['prod-eu'])).toContainEqual(s.Condition);
      else expect(res).toMatch(/:document\//);
    }
  });

  it('notifies on failed, timed-out and aborted executions', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'] },
      },
    });
  });

  it('exposes only the approval callback through a function URL, and the signing key stays in Secrets Manager', () => {
    const urls = Object.values(template.findResources('AWS::Lambda::Url'));
    expect(urls).toHaveLength(1);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    const fns = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables: Record<string, unknown> } };
    }[];
    const withSecret = fns.filter((f) => f.Properties.Environment?.Variables.APPROVAL_SECRET_ARN);
    expect(withSecret).toHaveLength(2);
    for (const f of withSecret) expect(JSON.stringify(f.Properties.Environment)).not.toMatch(/"[A-Za-z0-9]{64}"/);
  });

  it('gives the open-incident function read access to the kill switch and nothing to write it', () => {
    const open = identityStatements(templateJson).filter((s) => s.logicalId.includes('OpenIncidentFunction'));
    const actions = open.flatMap((s) => s.Action);
    expect(actions).toEqual(expect.arrayContaining(['ssm:GetParameter']));
    expect(actions.filter((a) => /^ssm:(Put|Delete)/.test(a))).toEqual([]);
  });
});

describe('the state machine is valid ASL in every configuration', () => {
  type AslState = { Type: string; Choices?: unknown[]; Branches?: { States: Record<string, AslState> }[] };
  const definitionOf = (config: Parameters<typeof synth>[0]) => {
    const { template } = synth(config);
    const sm = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0] as {
      Properties: { DefinitionString: { 'Fn::Join': [string, unknown[]] } };
    };
    const text = sm.Properties.DefinitionString['Fn::Join'][1]
      .map((p) => (typeof p === 'string' ? p : 'TOKEN'))
      .join('');
    return JSON.parse(text) as { States: Record<string, AslState> };
  };
  const all = (states: Record<string, AslState>): [string, AslState][] =>
    Object.entries(states).flatMap(([n, s]) => [
      [n, s] as [string, AslState],
      ...(s.Branches ?? []).flatMap((b) => all(b.States)),
    ]);

  it.each([
    ['no cluster', { clusters: [] }],
    ['a cluster whose API pod-doctor does not reach', { clusters: [{ name: 'legacy', kubernetesApi: false }] }],
    ['a cluster with its API', { clusters: [{ name: 'prod-eu' }] }],
  ])('%s: every Choice has at least one rule (Step Functions refuses one without)', (_, config) => {
    const states = all(definitionOf(config as Parameters<typeof synth>[0]).States);
    const choices = states.filter(([, s]) => s.Type === 'Choice');
    expect(choices.length).toBeGreaterThan(0);
    expect(choices.filter(([, s]) => !s.Choices?.length).map(([n]) => n)).toEqual([]);
  });
});
