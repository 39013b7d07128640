import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('Kubernetes access (EKS access entries)', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }, { name: 'prod-eu-2' }] });

  it('creates one STANDARD access entry per cluster mapping the Kubernetes function role to group pod-doctor, with no access policy', () => {
    const entries = template.findResources('AWS::EKS::AccessEntry');
    expect(
      Object.values(entries).map((e) => (e as { Properties: { ClusterName: string } }).Properties.ClusterName),
    ).toEqual(['prod-eu', 'prod-eu-2']);
    template.allResourcesProperties('AWS::EKS::AccessEntry', {
      Type: 'STANDARD',
      KubernetesGroups: ['pod-doctor'],
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Kubernetes'), 'Arn'] },
      AccessPolicies: Match.absent(),
    });
  });

  it('lets the function describe only the configured clusters (endpoint and CA)', () => {
    const eks = identityStatements(templateJson).filter((s) => /Kubernetes/.test(s.logicalId));
    expect(eks.flatMap((s) => s.Action).filter((a) => !/^(logs|xray):/.test(a))).toEqual(['eks:DescribeCluster']);
    const text = JSON.stringify(eks.map((s) => s.Resource));
    expect(text).toContain('cluster/prod-eu"');
    expect(text).toContain('cluster/prod-eu-2');
    expect(text).not.toContain('cluster/*');
  });

  it('wires the function into the workflow: Inspect cluster in Diagnose, Watch pods start before the verify probe', () => {
    const sm = Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0];
    const def = JSON.stringify(sm);
    for (const state of [
      'Inspect cluster',
      'Cluster not inspected',
      'Pods to watch?',
      'Watch pods start',
      'No pod signal',
    ]) {
      expect(def).toContain(state);
    }
  });

  it('without clusters: no access entry, no Kubernetes function, the workflow verifies after the window', () => {
    const none = synth({ clusters: [] });
    none.template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    const def = JSON.stringify(Object.values(none.template.findResources('AWS::StepFunctions::StateMachine'))[0]);
    expect(def).toContain('No cluster access');
    expect(def).not.toContain('Watch pods start');
  });
});
