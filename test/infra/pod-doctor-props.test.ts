import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lib/config.js';
import { PodDoctor, type PodDoctorProps } from '../../lib/pod-doctor.js';
import { PodDoctorStack } from '../../lib/pod-doctor-stack.js';
import { configDocument } from '../support/config-document.js';

const CLUSTER = { name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] };

/** One PodDoctor in a fresh stack (no bundling), plus whatever `extra` adds to the stack. */
function build(props: PodDoctorProps = {}, extra?: (stack: Stack) => Partial<PodDoctorProps>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Host', { env: { account: '111122223333', region: 'eu-west-1' } });
  const podDoctor = new PodDoctor(stack, 'PodDoctor', { ...props, ...extra?.(stack) });
  return { stack, podDoctor, template: Template.fromStack(stack) };
}

type Resources = Record<string, { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }>;
const ofType = (t: Template, type: string) =>
  Object.values(t.toJSON().Resources as Resources).filter((r) => r.Type === type);

function functionWith(t: Template, text: string) {
  const fn = ofType(t, 'AWS::Lambda::Function').find((f) => JSON.stringify(f.Properties).includes(text));
  if (!fn) throw new Error(`no function with ${text}`);
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** The configuration document the functions read (the Config resource stores it). */
function workflowConfig(t: Template): Record<string, unknown> {
  return configDocument(t.toJSON()) as unknown as Record<string, unknown>;
}

function ingestEnvironment(t: Template): Record<string, unknown> {
  return functionWith(t, 'INCIDENT_WINDOW');
}

describe('PodDoctor props and their defaults', () => {
  const defaults = build().template;

  it('clusters: none by default; each cluster gets its subscriptions and tag-scoped node commands', () => {
    expect(ofType(defaults, 'AWS::Logs::SubscriptionFilter')).toHaveLength(0);
    const t = build({ clusters: [CLUSTER] }).template;
    t.hasResourceProperties('AWS::Logs::SubscriptionFilter', { LogGroupName: CLUSTER.logGroups[0] });
    expect((workflowConfig(t).clusters as { name: string }[]).map((c) => c.name)).toEqual(['prod-eu']);
  });

  it('notificationEmails: none by default; each one an e-mail subscription', () => {
    expect(ofType(defaults, 'AWS::SNS::Subscription')).toHaveLength(0);
    const t = build({ notificationEmails: ['oncall@example.com'] }).template;
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
  });

  it('modes and remedies: the documented defaults, overridable per class', () => {
    expect(workflowConfig(defaults).modes).toMatchObject({
      'sandbox-image': 'auto',
      'pid-exhaustion': 'approve',
      'ip-exhaustion': 'observe',
    });
    const { podDoctor, template } = build({
      modes: { 'ip-exhaustion': 'approve' },
      remedies: { 'cni-permissions': 'auto' },
    });
    expect(workflowConfig(template).modes).toMatchObject({ 'ip-exhaustion': 'approve', 'sandbox-image': 'auto' });
    expect(build().podDoctor.config.remedies).toEqual({});
    expect(podDoctor.config.remedies).toEqual({ 'cni-permissions': 'auto' });
  });

  it('limits: defaults 5 actions/hour, 0.3 share, 30 min window, 60 min cooldown, 60 min approval, 2 min verification', () => {
    expect(workflowConfig(defaults).limits).toEqual({
      maxNodeActionsPerClusterPerHour: 5,
      maxNodeGroupShareAffected: 0.3,
      incidentWindowMinutes: 30,
      nodeCooldownMinutes: 60,
      approvalTimeoutMinutes: 60,
      verificationWindowMinutes: 2,
    });
    expect(ingestEnvironment(defaults).INCIDENT_WINDOW_MINUTES).toBe('30');
    const t = build({
      maxNodeActionsPerClusterPerHour: 2,
      maxNodeGroupShareAffected: 0.5,
      incidentWindow: Duration.minutes(10),
      nodeCooldown: Duration.hours(2),
      approvalTimeout: Duration.minutes(15),
      verificationWindow: Duration.minutes(5),
    }).template;
    expect(workflowConfig(t).limits).toEqual({
      maxNodeActionsPerClusterPerHour: 2,
      maxNodeGroupShareAffected: 0.5,
      incidentWindowMinutes: 10,
      nodeCooldownMinutes: 120,
      approvalTimeoutMinutes: 15,
      verificationWindowMinutes: 5,
    });
    expect(ingestEnvironment(t).INCIDENT_WINDOW_MINUTES).toBe('10');
    const definition = JSON.stringify(ofType(t, 'AWS::StepFunctions::StateMachine')[0].Properties.DefinitionString);
    expect(definition).toContain('\\"TimeoutSeconds\\":900');
    expect(definition).toContain('\\"Seconds\\":300');
  });

  it('durations must be whole minutes and days, and values keep the cdk.json validation', () => {
    expect(() => build({ incidentWindow: Duration.seconds(90) })).toThrow(/minutes/);
    expect(() => build({ historyRetention: Duration.hours(36) })).toThrow(/days/);
    expect(() => build({ maxNodeGroupShareAffected: 2 })).toThrow(/limits\.maxNodeGroupShareAffected/);
    expect(() => build({ notificationEmails: ['not-an-address'] })).toThrow(/notificationEmails/);
  });

  it('killSwitchParameterName: generated by default (unique per instance), or the given name', () => {
    defaults.hasResourceProperties('AWS::SSM::Parameter', { Value: 'off', Name: Match.absent() });
    build({ killSwitchParameterName: '/ops/pod-doctor/off' }).template.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/ops/pod-doctor/off',
    });
  });

  it('trustedSandboxImages: none by default, in the configuration every function reads', () => {
    expect(workflowConfig(defaults).trustedSandboxImages).toEqual([]);
    const t = build({ trustedSandboxImages: ['mirror.example.com/eks/pause'] }).template;
    expect(workflowConfig(t).trustedSandboxImages).toEqual(['mirror.example.com/eks/pause']);
  });

  it('historyRetention, evidenceRetention, logRetention: 365 days, 365 days, three months by default', () => {
    expect(ingestEnvironment(defaults).HISTORY_RETENTION_DAYS).toBe('365');
    expect(workflowConfig(defaults).historyRetentionDays).toBe(365);
    defaults.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 365 })]) },
    });
    for (const g of ofType(defaults, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(90);
    const t = build({
      historyRetention: Duration.days(30),
      evidenceRetention: Duration.days(60),
      logRetention: RetentionDays.ONE_WEEK,
    }).template;
    expect(ingestEnvironment(t).HISTORY_RETENTION_DAYS).toBe('30');
    t.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 60 })]) },
    });
    for (const g of ofType(t, 'AWS::Logs::LogGroup')) expect(g.Properties.RetentionInDays).toBe(7);
  });

  it('removalPolicy: RETAIN by default for table (deletion protection on), buckets and every log group', () => {
    const audit = (t: Template) =>
      ['AWS::DynamoDB::GlobalTable', 'AWS::S3::Bucket', 'AWS::Logs::LogGroup'].flatMap((type) => ofType(t, type));
    expect(audit(defaults).length).toBeGreaterThan(5);
    for (const r of audit(defaults)) expect(r.DeletionPolicy, r.Type).toBe('Retain');
    defaults.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
    const t = build({ removalPolicy: RemovalPolicy.DESTROY }).template;
    for (const r of audit(t)) expect(r.DeletionPolicy, r.Type).toBe('Delete');
    t.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('topic and encryptionKey: a new topic under a new rotating key by default; bring your own', () => {
    expect(ofType(defaults, 'AWS::SNS::Topic')).toHaveLength(1);
    defaults.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const own = build({}, (s) => ({ encryptionKey: new Key(s, 'OwnKey') })).template;
    expect(ofType(own, 'AWS::KMS::Key')).toHaveLength(1);
    own.hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OwnKey'), 'Arn'] },
    });
    const t = build({ notificationEmails: ['a@example.com'] }, (s) => ({ topic: new Topic(s, 'OwnTopic') })).template;
    expect(ofType(t, 'AWS::SNS::Topic')).toHaveLength(1);
    expect(ofType(t, 'AWS::KMS::Key')).toHaveLength(0);
    t.hasResourceProperties('AWS::SNS::Subscription', { TopicArn: { Ref: Match.stringLikeRegexp('^OwnTopic') } });
  });

  it('incidentTable and evidenceBucket: created by default; bring your own and none is created', () => {
    expect(ofType(defaults, 'AWS::DynamoDB::GlobalTable')).toHaveLength(1);
    expect(ofType(defaults, 'AWS::S3::Bucket')).toHaveLength(2);
    const t = build({ clusters: [CLUSTER] }, (s) => ({
      incidentTable: new TableV2(s, 'OwnTable', {
        partitionKey: { name: 'pk', type: AttributeType.STRING },
        sortKey: { name: 'sk', type: AttributeType.STRING },
        timeToLiveAttribute: 'expiresAt',
      }),
      evidenceBucket: Bucket.fromBucketName(s, 'OwnBucket', 'team-evidence'),
    })).template;
    expect(ofType(t, 'AWS::DynamoDB::GlobalTable')).toHaveLength(1);
    expect(ofType(t, 'AWS::S3::Bucket')).toHaveLength(0);
    expect(ingestEnvironment(t).EVIDENCE_BUCKET_NAME).toBe('team-evidence');
    expect(JSON.stringify(ingestEnvironment(t).INCIDENT_TABLE_NAME)).toMatch(/OwnTable/);
  });
});

describe('PodDoctor API', () => {
  it('creates no outputs itself; the project stack does', () => {
    expect(Object.keys(build().template.toJSON().Outputs ?? {})).toEqual([]);
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new PodDoctorStack(app, 'S', { config: parseConfig({}) });
    expect(Object.keys(Template.fromStack(stack).toJSON().Outputs).sort()).toEqual([
      'EvidenceBucketName',
      'KillSwitchParameterName',
      'NotificationTopicArn',
      'StateMachineArn',
    ]);
  });

  it('configuration goes one way: cdk.json → configuration → constructs, the same as props → configuration', () => {
    const config = parseConfig({ clusters: [CLUSTER], logRetentionDays: 30, limits: { incidentWindowMinutes: 45 } });
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const fromConfig = PodDoctor.fromConfig(new Stack(app, 'FromConfig'), 'PodDoctor', config);
    // The validated configuration is used as given (with the context's cluster VPCs), not turned into props and parsed again.
    expect(fromConfig.config).toStrictEqual(config);
    const fromProps = build({
      clusters: [CLUSTER],
      logRetention: RetentionDays.ONE_MONTH,
      incidentWindow: Duration.minutes(45),
    }).podDoctor;
    expect(fromProps.config).toEqual(config);
    const retention = (c: PodDoctor) =>
      ofType(Template.fromStack(Stack.of(c)), 'AWS::Logs::LogGroup').map((g) => g.Properties.RetentionInDays);
    expect(new Set(retention(fromConfig))).toEqual(new Set([30]));
    expect(retention(fromConfig)).toEqual(retention(fromProps));
  });

  it('grant methods return the grant they added', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Grants');
    const podDoctor = new PodDoctor(stack, 'PodDoctor');
    const role = new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') });
    for (const grant of [
      podDoctor.grantKillSwitch(role),
      podDoctor.grantReadEvidence(role),
      podDoctor.grantNodeLogUpload(role),
      podDoctor.grantReadHistory(role),
    ])
      expect(grant.success).toBe(true);
    const statements = JSON.stringify(Template.fromStack(stack).findResources('AWS::IAM::Policy'));
    for (const action of ['ssm:PutParameter', 's3:GetObject*', 's3:PutObject', 'dynamodb:Query'])
      expect(statements).toContain(action);
  });

  it('metrics and alarms: the dead-letter queues, failed executions, configuration integrity, verification failures and class storms, notifying the topic', () => {
    const { podDoctor, template } = build();
    expect(podDoctor.metricFailedExecutions().metricName).toBe('ExecutionsFailed');
    expect(podDoctor.metricIngestDeadLetterMessages().metricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(podDoctor.metricDeliveryDeadLetterMessages().metricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(podDoctor.alarms).toHaveLength(8);
    const alarms = ofType(template, 'AWS::CloudWatch::Alarm');
    expect(alarms.map((a) => a.Properties.MetricName ?? 'metric math').sort()).toEqual([
      // The dead-letter queues: ingest, delivery, node commands' status-change events.
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      // A configuration document that does not match the version the deployment pinned.
      'ConfigIntegrityMismatch',
      'ExecutionsFailed',
      'VerificationFailures',
      // The class storm alarms: the most incidents of one class, over at most 10 classes each.
      'metric math',
      'metric math',
    ]);
    for (const a of alarms) expect(JSON.stringify(a.Properties.AlarmActions)).toMatch(/NotificationsTopic/);
  });

  it('with clusters, one more alarm: each cluster whose Kubernetes API keeps failing (a contributor per cluster)', () => {
    const { podDoctor, template } = build({ clusters: [CLUSTER] });
    expect(podDoctor.alarms).toHaveLength(build().podDoctor.alarms.length + 1);
    const [reads] = ofType(template, 'AWS::CloudWatch::Alarm').filter((a) =>
      JSON.stringify(a.Properties.Metrics ?? '').includes('ClusterReadFailed'),
    );
    expect(reads.Properties.Metrics).toEqual([
      {
        Id: 'expr_1',
        Expression:
          'SELECT SUM(ClusterReadFailed) FROM SCHEMA("PodDoctor", cluster, service) WHERE service = \'pod-doctor\' GROUP BY cluster',
        Period: 300,
        ReturnData: true,
      },
    ]);
    expect(reads.Properties).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 3, Threshold: 1 });
    expect(JSON.stringify(reads.Properties.AlarmActions)).toMatch(/NotificationsTopic/);
  });

  it('can be instantiated twice in one stack: no fixed physical names', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Twice');
    new PodDoctor(stack, 'A', { clusters: [CLUSTER] });
    new PodDoctor(stack, 'B', { clusters: [{ ...CLUSTER, name: 'staging' }] });
    const t = Template.fromStack(stack);
    expect(ofType(t, 'AWS::StepFunctions::StateMachine')).toHaveLength(2);
    const named = Object.values(t.toJSON().Resources as Resources).filter((r) =>
      [
        'Name',
        'TopicName',
        'TableName',
        'BucketName',
        'FunctionName',
        'RoleName',
        'StateMachineName',
        'QueueName',
      ].some((k) => typeof r.Properties?.[k] === 'string'),
    );
    expect(named.map((r) => r.Type)).toEqual([]);
  });
});
