import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { NodeCommands } from '../../lib/constructs/node-commands.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { NODE_COMMANDS } from '../../ssm/documents.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('node command documents', () => {
  const { template } = synth();
  const docs = Object.values(template.findResources('AWS::SSM::Document')).map(
    (d) => (d as { Properties: { Content: Record<string, unknown>; DocumentType: string; Name?: string } }).Properties,
  );

  it('synthesizes one Command document (schema 2.2) per node script, with generated names', () => {
    expect(docs).toHaveLength(Object.keys(NODE_COMMANDS).length);
    for (const d of docs) {
      expect(d.DocumentType).toBe('Command');
      expect(d.Content.schemaVersion).toBe('2.2');
      expect(d.Name).toBeUndefined();
    }
  });

  it.each(Object.values(NODE_COMMANDS).map((s) => [s.script, s] as const))(
    '%s is embedded verbatim with its parameters declared',
    (script, spec) => {
      const doc = docs.find((d) => (d.Content.description as string) === spec.description);
      expect(doc).toBeDefined();
      const content = doc?.Content as {
        parameters: Record<string, { type: string; allowedPattern: string; interpolationType: string }>;
        mainSteps: { action: string; inputs: { runCommand: string[] } }[];
      };
      expect(Object.keys(content.parameters).sort()).toEqual(spec.parameters.map((p) => p.name).sort());
      for (const p of Object.values(content.parameters)) {
        expect(p).toMatchObject({
          type: 'String',
          interpolationType: 'ENV_VAR',
          allowedPattern: expect.stringMatching(/^\^/),
        });
      }
      expect(content.mainSteps[0].action).toBe('aws:runShellScript');
      const embedded = content.mainSteps[0].inputs.runCommand.join('\n');
      expect(embedded).toContain(readFileSync(join(PROJECT_ROOT, 'ssm', script), 'utf8').trimEnd());
      expect(embedded).toContain(readFileSync(join(PROJECT_ROOT, 'ssm', 'lib.sh'), 'utf8').trimEnd());
    },
  );
});

describe('NodeCommands.grantSendCommand', () => {
  const stack = new Stack(new App(), 'Test');
  const commands = new NodeCommands(stack, 'NodeCommands');
  const role = new Role(stack, 'Caller', { assumedBy: new ServicePrincipal('states.amazonaws.com') });
  commands.grantSendCommand(role, ['repairPauseImage', 'probeNode'], ['prod-eu', 'prod-us']);
  const template = Template.fromStack(stack);
  const sends = identityStatements(template.toJSON()).filter((s) => s.Action.includes('ssm:SendCommand'));

  it('names only the project documents, never AWS-RunShellScript', () => {
    const docStatement = sends.find((s) => JSON.stringify(s.Resource).includes(':document/'));
    expect(docStatement).toBeDefined();
    expect(JSON.stringify(docStatement?.Resource)).not.toMatch(/AWS-RunShellScript|document\/\*/);
    expect(docStatement?.Resource).toHaveLength(2);
  });

  it('allows instances only when a tag each node kind really carries names a configured cluster', () => {
    const instances = sends.filter((s) => JSON.stringify(s.Resource).includes(':instance/'));
    // IAM ANDs the keys of one condition block: each accepted tag is its own statement.
    expect(instances.map((s) => s.Condition)).toEqual([
      { StringEquals: { 'ssm:resourceTag/eks:cluster-name': ['prod-eu', 'prod-us'] } },
      { StringEquals: { 'ssm:resourceTag/eks:eks-cluster-name': ['prod-eu', 'prod-us'] } },
      { StringEquals: { 'ssm:resourceTag/kubernetes.io/cluster/prod-eu': ['owned'] } },
      { StringEquals: { 'ssm:resourceTag/kubernetes.io/cluster/prod-us': ['owned'] } },
    ]);
  });

  it('grants nothing when no cluster is configured', () => {
    const s = new Stack(new App(), 'Empty');
    const c = new NodeCommands(s, 'NodeCommands');
    const r = new Role(s, 'Caller', { assumedBy: new ServicePrincipal('states.amazonaws.com') });
    c.grantSendCommand(r, ['probeNode'], []);
    Template.fromStack(s).resourceCountIs('AWS::IAM::Policy', 0);
  });
});
