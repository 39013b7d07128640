import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SUBSCRIPTION_FILTER_PATTERN } from '../../lib/constructs/detection.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

const config = {
  clusters: [{ name: 'prod-eu', region: 'eu-west-1', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] }],
  notificationEmails: ['oncall@example.com', 'platform@example.com'],
  historyRetentionDays: 90,
  logRetentionDays: 30,
};

describe('foundation stack', () => {
  const { template, templateJson } = synth(config);

  it('synthesizes with no context at all and cdk-nag passing', () => {
    expect(() => synth()).not.toThrow();
  });

  it('runs every function on Node.js 22, ARM64, with active tracing and JSON logs in its own log group', () => {
    // The CDK custom resource Provider framework's relay function is aws-cdk-lib's, not pod-doctor's.
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (f) =>
        !/AWS CDK resource provider framework/.test(
          String((f as { Properties: { Description?: string } }).Properties.Description),
        ),
    );
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      const p = (fn as { Properties: Record<string, unknown> }).Properties;
      expect(p.Runtime).toBe('nodejs22.x');
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
      expect(p.LoggingConfig).toMatchObject({ LogFormat: 'JSON', LogGroup: { Ref: expect.any(String) } });
      expect((p.Environment as { Variables: Record<string, string> }).Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'pod-doctor',
        NODE_OPTIONS: '--enable-source-maps',
      });
    }
  });

  it('keeps logs for the configured retention', () => {
    const groups = Object.values(template.findResources('AWS::Logs::LogGroup'));
    expect(groups.length).toBeGreaterThan(1);
    for (const g of groups)
      expect((g as { Properties: { RetentionInDays: number } }).Properties.RetentionInDays).toBe(30);
  });

  it('expires history rows through TTL, with point-in-time recovery and encryption', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      SSESpecification: { SSEEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('encrypts the evidence bucket, blocks public access, expires objects and denies plain HTTP', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: 'evidence/' }),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 365, Status: 'Enabled' })]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('subscribes every configured email to an encrypted topic', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 2);
    for (const email of config.notificationEmails) {
      template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: email });
    }
    // Each e-mail's topic is encrypted with a customer managed key that rotates.
    const resources = templateJson.Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
    const subscriptions = Object.values(
      template.findResources('AWS::SNS::Subscription', { Properties: { Protocol: 'email' } }),
    );
    for (const sub of subscriptions) {
      const topicId = (sub.Properties.TopicArn as { Ref: string }).Ref;
      expect(resources[topicId]?.Type).toBe('AWS::SNS::Topic');
      const keyArn = resources[topicId].Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] };
      expect(keyArn['Fn::GetAtt'][1]).toBe('Arn');
      const key = resources[keyArn['Fn::GetAtt'][0]];
      expect(key.Type).toBe('AWS::KMS::Key');
      expect(key.Properties.EnableKeyRotation).toBe(true);
    }
  });

  it('subscribes the ingest function to each configured log group', () => {
    template.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/aws/containerinsights/prod-eu/dataplane',
      FilterPattern: SUBSCRIPTION_FILTER_PATTERN,
    });
  });

  it('creates a kill switch parameter that is off and only accepts on/off', () => {
    template.hasResourceProperties('AWS::SSM::Parameter', { Value: 'off', AllowedPattern: '^(on|off)$' });
  });

  it('grants no wildcard IAM actions', () => {
    const allows = identityStatements(templateJson).filter((s) => s.Effect === 'Allow');
    expect(allows.length).toBeGreaterThan(0);
    const wildcards = allows.flatMap((s) =>
      s.Action.filter((a) => a === '*' || a.endsWith(':*')).map((a) => `${s.logicalId}: ${a}`),
    );
    expect(wildcards).toEqual([]);
  });
});
