import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/config-document.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('Kubernetes access (EKS access entries)', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }, { name: 'prod-eu-2' }] });

  it('creates one STANDARD access entry per cluster for each of the Kubernetes function, the door and the sweep: the door in groups pod-doctor and pod-doctor-actions, the others in pod-doctor only, with no access policy', () => {
    const entries = Object.values(template.findResources('AWS::EKS::AccessEntry')) as {
      Properties: { ClusterName: string; PrincipalArn: { 'Fn::GetAtt': string[] }; KubernetesGroups: string[] };
    }[];
    const owner = (e: (typeof entries)[number]) => {
      const role = e.Properties.PrincipalArn['Fn::GetAtt'][0] ?? '';
      if (/Door/.test(role)) return 'door';
      if (/KubernetesSweep/.test(role)) return 'sweep';
      return /KubernetesFunction/.test(role) ? 'kubernetes' : role;
    };
    const view = entries.map((e) => [e.Properties.ClusterName, owner(e), e.Properties.KubernetesGroups.join('+')]);
    for (const cluster of ['prod-eu', 'prod-eu-2']) {
      expect(view.filter(([c]) => c === cluster).sort()).toEqual([
        [cluster, 'door', 'pod-doctor+pod-doctor-actions'],
        [cluster, 'kubernetes', 'pod-doctor'],
        [cluster, 'sweep', 'pod-doctor'],
      ]);
    }
    expect(entries).toHaveLength(6);
    template.allResourcesProperties('AWS::EKS::AccessEntry', {
      Type: 'STANDARD',
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Kubernetes|Door'), 'Arn'] },
      AccessPolicies: Match.absent(),
    });
  });

  it('lets the function describe only the configured clusters (endpoint and CA)', () => {
    const eks = identityStatements(templateJson).filter(
      (s) => /Kubernetes/.test(s.logicalId) && !/Sweep/.test(s.logicalId),
    );
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
      'Verify probe: request',
    ]) {
      expect(def).toContain(state);
    }
    expect(def).toContain('\\"Watch pods start\\":{\\"Next\\":\\"Verify probe: request\\"');
  });

  it('a cluster with kubernetesApi: false (CONFIG_MAP) gets no access entry and no DescribeCluster; the others keep theirs; the configuration says so', () => {
    const mixed = synth({ clusters: [{ name: 'prod-eu' }, { name: 'legacy', kubernetesApi: false }] });
    const entries = Object.values(mixed.template.findResources('AWS::EKS::AccessEntry')) as {
      Properties: { ClusterName: string };
    }[];
    // The Kubernetes function, the door and the sweep: prod-eu only.
    expect(entries.map((e) => e.Properties.ClusterName)).toEqual(['prod-eu', 'prod-eu', 'prod-eu']);
    const describe = identityStatements(mixed.templateJson).filter((s) => s.Action.includes('eks:DescribeCluster'));
    const kubernetes = describe.filter((s) => /Kubernetes/.test(s.logicalId));
    expect(kubernetes.length).toBe(2);
    expect(JSON.stringify(kubernetes.map((s) => s.Resource))).not.toContain('cluster/legacy');
    expect(configDocument(mixed.templateJson).clusters.map((c) => [c.name, c.kubernetesApi])).toEqual([
      ['prod-eu', undefined],
      ['legacy', false],
    ]);
  });

  it('every cluster with kubernetesApi: false: no access entry, no Kubernetes function or sweep, no cluster-read alarm', () => {
    const none = synth({ clusters: [{ name: 'legacy', kubernetesApi: false }] });
    none.template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    none.template.resourceCountIs('AWS::Scheduler::Schedule', 0);
    const def = JSON.stringify(Object.values(none.template.findResources('AWS::StepFunctions::StateMachine'))[0]);
    expect(def).toContain('No cluster access');
    expect(JSON.stringify(none.templateJson)).not.toContain('ClusterReadFailed');
  });

  it('without clusters: no access entry, no Kubernetes function, the workflow verifies after the window', () => {
    const none = synth({ clusters: [] });
    none.template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    const def = JSON.stringify(Object.values(none.template.findResources('AWS::StepFunctions::StateMachine'))[0]);
    expect(def).toContain('No cluster access');
    expect(def).not.toContain('Watch pods start');
  });
});

describe('scheduled sweep', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }] });

  it('runs every 5 minutes through EventBridge Scheduler, without retries piling up', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
  });

  it('gives the sweep its own access entry, open-or-join writes, StartExecution and the read of its configuration', () => {
    // The Kubernetes function, the door and the sweep.
    template.resourceCountIs('AWS::EKS::AccessEntry', 3);
    const sweep = identityStatements(templateJson).filter((s) => /KubernetesSweepFunction/.test(s.logicalId));
    const actions = sweep
      .flatMap((s) => s.Action)
      .filter((a) => !/^(logs|xray):/.test(a))
      .sort();
    expect(actions).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'eks:DescribeCluster',
      'states:StartExecution',
    ]);
  });
});
