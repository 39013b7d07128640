import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { configDocument } from '../support/config-document.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

describe('Kubernetes access (EKS access entries)', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }, { name: 'prod-eu-2' }] });

  it('creates one STANDARD access entry per cluster for each of the Kubernetes function, the door, the sweep and the events reader: the door in groups pod-doctor and pod-doctor-actions, the others in pod-doctor only, with no access policy', () => {
    const entries = Object.values(template.findResources('AWS::EKS::AccessEntry')) as {
      Properties: { ClusterName: string; PrincipalArn: { 'Fn::GetAtt': string[] }; KubernetesGroups: string[] };
    }[];
    const owner = (e: (typeof entries)[number]) => {
      const role = e.Properties.PrincipalArn['Fn::GetAtt'][0] ?? '';
      if (/Door/.test(role)) return 'door';
      if (/KubernetesSweep/.test(role)) return 'sweep';
      if (/KubernetesEvents/.test(role)) return 'events reader';
      return /KubernetesFunction/.test(role) ? 'kubernetes' : role;
    };
    const view = entries.map((e) => [e.Properties.ClusterName, owner(e), e.Properties.KubernetesGroups.join('+')]);
    for (const cluster of ['prod-eu', 'prod-eu-2']) {
      expect(view.filter(([c]) => c === cluster).sort()).toEqual([
        [cluster, 'door', 'pod-doctor+pod-doctor-actions'],
        [cluster, 'events reader', 'pod-doctor'],
        [cluster, 'kubernetes', 'pod-doctor'],
        [cluster, 'sweep', 'pod-doctor'],
      ]);
    }
    expect(entries).toHaveLength(8);
    template.allResourcesProperties('AWS::EKS::AccessEntry', {
      Type: 'STANDARD',
      PrincipalArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Kubernetes|Door'), 'Arn'] },
      AccessPolicies: Match.absent(),
    });
  });

  it('lets the function describe only the configured clusters (endpoint and CA)', () => {
    const eks = identityStatements(templateJson).filter(
      (s) => /Kubernetes/.test(s.logicalId) && !/Sweep|KubernetesEvents/.test(s.logicalId),
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
    // The Kubernetes function, the door, the sweep and the events reader: prod-eu only.
    expect(entries.map((e) => e.Properties.ClusterName)).toEqual(['prod-eu', 'prod-eu', 'prod-eu', 'prod-eu']);
    const describe = identityStatements(mixed.templateJson).filter((s) => s.Action.includes('eks:DescribeCluster'));
    const kubernetes = describe.filter((s) => /Kubernetes/.test(s.logicalId));
    expect(kubernetes.length).toBe(3);
    expect(JSON.stringify(kubernetes.map((s) => s.Resource))).not.toContain('cluster/legacy');
    expect(configDocument(mixed.templateJson).clusters.map((c) => [c.name, c.kubernetesApi])).toEqual([
      ['prod-eu', undefined],
      ['legacy', false],
    ]);
  });

  it('every cluster with kubernetesApi: false: no access entry, no Kubernetes function, sweep or events reader, no cluster-read alarm; its signals still checked', () => {
    const none = synth({ clusters: [{ name: 'legacy', kubernetesApi: false }] });
    none.template.resourceCountIs('AWS::EKS::AccessEntry', 0);
    // One schedule: the signal self-check (logs and CloudTrail), none reading the cluster's API.
    const schedules = Object.values(none.template.findResources('AWS::Scheduler::Schedule')) as {
      Properties: { Description: string };
    }[];
    expect(schedules.map((s) => s.Properties.Description)).toEqual([
      'pod-doctor: check the detection signals of the configured clusters',
    ]);
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
      Description: Match.stringLikeRegexp('sweep'),
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
  });

  it('gives the sweep its own access entry, open-or-join writes, StartExecution and the read of its configuration', () => {
    // The Kubernetes function, the door, the sweep and the events reader.
    template.resourceCountIs('AWS::EKS::AccessEntry', 4);
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

describe('Kubernetes events reader', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }] });
  const fn = () =>
    Object.values(template.findResources('AWS::Lambda::Function')).find(
      (r) => r.Metadata?.PodDoctorHandler === 'kubernetes-events',
    ) as { Properties: { Timeout: number; Environment: { Variables: Record<string, string> } } };

  it('watches each minute (the shortest EventBridge Scheduler rate) for 50 s, its timeout a margin beyond, no retries', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Description: Match.stringLikeRegexp('Warning events'),
      ScheduleExpression: 'rate(1 minute)',
      Target: Match.objectLike({ RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
    expect(fn().Properties.Timeout).toBe(75);
    expect(fn().Properties.Environment.Variables).toMatchObject({ WATCH_SECONDS: '50' });
    // The clusters come from the configuration store, not the environment.
    expect(fn().Properties.Environment.Variables).toHaveProperty('CONFIG_VERSION');
    expect(fn().Properties.Environment.Variables).not.toHaveProperty('CLUSTERS');
  });

  it('writes only incident rows and its own state items (leading keys), reads its configuration, starts executions, keeps rejected events, publishes its limit notice', () => {
    const own = identityStatements(templateJson).filter(
      (s) => /KubernetesEventsFunction/.test(s.logicalId) && !/^(logs|xray):/.test(s.Action[0] ?? ''),
    );
    expect(own.flatMap((s) => s.Action).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'eks:DescribeCluster',
      // The one notice per cluster, rank and hour of what its limits dropped (the topic is encrypted).
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      's3:PutObject',
      'sns:Publish',
      'states:StartExecution',
    ]);
    const ddb = own.find((s) => s.Action.includes('dynamodb:PutItem'));
    // Its hourly budgets per rank and namespace (BUDGET#) besides.
    expect(ddb?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['INCIDENT#*', 'EVENTS#*', 'EVENTSEEN#*', 'BUDGET#*'] },
    });
    // It deletes only its own state (the events it counted), never an incident or its history.
    expect(own.find((s) => s.Action.includes('dynamodb:DeleteItem'))?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVENTS#*', 'EVENTSEEN#*'] },
    });
    expect(JSON.stringify(own.find((s) => s.Action.includes('s3:PutObject'))?.Resource)).toContain('/rejected/*');
    expect(own.find((s) => s.Action.includes('dynamodb:GetItem'))?.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CONFIG'] },
    });
  });
});

describe('signal self-check', () => {
  const { template, templateJson } = synth({ clusters: [{ name: 'prod-eu' }] });

  it('checks every hour, without retries piling up', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Description: Match.stringLikeRegexp('detection signals'),
      ScheduleExpression: 'rate(1 hour)',
      Target: Match.objectLike({ RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
  });

  it('reads the two Container Insights groups of each cluster, the trails, the reader state; writes signal states; publishes', () => {
    const own = identityStatements(templateJson)
      .filter((s) => /SignalCheckFunction/.test(s.logicalId))
      .map((s) => ({ ...s, Action: s.Action.filter((a) => !/^(logs:(Create|Put)|xray:)/.test(a)) }));
    const text = (a: string) => JSON.stringify(own.find((s) => s.Action.includes(a))?.Resource);
    expect(own.flatMap((s) => s.Action).sort()).toEqual([
      'cloudtrail:DescribeTrails',
      'cloudtrail:GetTrailStatus',
      'dynamodb:GetItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'kms:Decrypt',
      'kms:GenerateDataKey*',
      'logs:FilterLogEvents',
      'sns:Publish',
    ]);
    expect(text('logs:FilterLogEvents')).toContain('/aws/containerinsights/prod-eu/dataplane:*');
    expect(text('logs:FilterLogEvents')).toContain('/aws/containerinsights/prod-eu/application:*');
    expect(text('logs:FilterLogEvents')).toContain('/aws/otel/containerinsights/prod-eu/application:*');
    // It writes only its own statuses; it reads the events reader's state and its configuration.
    expect(own.find((s) => s.Action.includes('dynamodb:UpdateItem'))?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['SIGNAL#*'] },
    });
    expect(own.filter((s) => s.Action.includes('dynamodb:GetItem')).map((s) => s.Condition)).toEqual(
      expect.arrayContaining([
        { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['CONFIG'] } },
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVENTS#*', 'SIGNAL#*'] } },
      ]),
    );
  });
});
