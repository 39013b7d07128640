import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { logGroupClusters } from '../../lambdas/core/workflow/workflow-config.js';
import { SUBSCRIPTION_FILTER_PATTERN } from '../../lib/constructs/detection.js';
import { CLOUDTRAIL_RULES } from '../../lib/event-patterns.js';
import { configDocument } from '../support/config-document.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

const config = {
  clusters: [
    { name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane', '/eks/prod-eu/ipamd'] },
    { name: 'prod-us', logGroups: ['/aws/containerinsights/prod-us/dataplane'] },
  ],
};

describe('detection', () => {
  const { template, templateJson } = synth(config);
  const statements = identityStatements(templateJson);
  const rules = Object.values(template.findResources('AWS::Events::Rule')).map(
    (r) =>
      (
        r as {
          Properties: { EventPattern: Record<string, unknown>; State: string; Targets: Record<string, unknown>[] };
        }
      ).Properties,
  );
  // The detection's own dead-letter queue (the one queue whose logical id names it).
  const [detectionQueue, ...others] = Object.keys(template.findResources('AWS::SQS::Queue')).filter((id) =>
    /DetectionDeadLetterQueue/.test(id),
  );

  it('has one dead-letter queue of its own', () => {
    expect(detectionQueue).toBeDefined();
    expect(others).toEqual([]);
  });

  it.each(CLOUDTRAIL_RULES.map((s) => [s.id, s] as const))(
    'rule %s matches its pattern and targets the ingest function with a DLQ',
    (_, spec) => {
      const rule = rules.find((r) =>
        JSON.stringify(r.EventPattern).includes(
          JSON.stringify((spec.pattern.detail as { eventName: string[] }).eventName),
        ),
      );
      expect(rule, spec.id).toBeDefined();
      expect(rule?.EventPattern).toMatchObject({
        source: spec.pattern.source,
        'detail-type': spec.pattern.detailType,
      });
      expect(rule?.State).toBe(spec.readOnlyCalls ? 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS' : 'ENABLED');
      expect(rule?.Targets[0]).toMatchObject({
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [detectionQueue, 'Arn'] } },
        RetryPolicy: { MaximumRetryAttempts: 4 },
      });
    },
  );

  it('watches the IAM policy changes on aws.iam, the EC2 CNI failures only with an error code', () => {
    const iam = rules.find((r) => JSON.stringify(r.EventPattern).includes('aws.iam'));
    expect(iam?.EventPattern).toMatchObject({
      detail: { eventName: ['DetachRolePolicy', 'DeleteRolePolicy', 'PutRolePolicy'] },
    });
    const cni = rules.find((r) => JSON.stringify(r.EventPattern).includes('AssignPrivateIpAddresses'));
    expect(cni?.EventPattern).toMatchObject({
      detail: { errorCode: [{ 'anything-but': ['Client.DryRunOperation'] }] },
    });
  });

  it('lets ingest look up node roles only in the configured clusters, and read no CloudTrail', () => {
    const ingest = statements.filter((s) => /DetectionIngest/.test(s.logicalId));
    const eks = ingest.filter((s) => s.Action.some((a) => a.startsWith('eks:')));
    const text = JSON.stringify(eks.map((s) => s.Resource));
    for (const r of ['cluster/prod-eu', 'cluster/prod-us', 'access-entry/prod-eu/*', 'nodegroup/prod-us/*'])
      expect(text).toContain(r);
    expect(text).not.toContain('cluster/*');
    expect(eks.flatMap((s) => s.Action).sort()).toEqual([
      'eks:DescribeAccessEntry',
      'eks:DescribeAddon',
      'eks:DescribeNodegroup',
      'eks:DescribePodIdentityAssociation',
      'eks:ListAccessEntries',
      'eks:ListNodegroups',
      'eks:ListPodIdentityAssociations',
    ]);
    expect(statements.flatMap((s) => s.Action)).not.toContain('cloudtrail:LookupEvents');
  });

  it('subscribes each configured log group once (CloudWatch allows two filters per group)', () => {
    const filters = Object.values(template.findResources('AWS::Logs::SubscriptionFilter')).map(
      (f) => (f as { Properties: { LogGroupName: string; FilterPattern: string } }).Properties,
    );
    expect(filters.map((f) => f.LogGroupName).sort()).toEqual([
      '/aws/containerinsights/prod-eu/dataplane',
      '/aws/containerinsights/prod-us/dataplane',
      '/eks/prod-eu/ipamd',
    ]);
    for (const f of filters) {
      expect(f.FilterPattern.length).toBeLessThanOrEqual(1024);
      expect(f.FilterPattern).toBe(SUBSCRIPTION_FILTER_PATTERN);
    }
  });

  it('tells the ingest function which cluster each log group belongs to (through its configuration)', () => {
    expect(logGroupClusters(configDocument(templateJson))).toEqual({
      '/aws/containerinsights/prod-eu/dataplane': 'prod-eu',
      '/eks/prod-eu/ipamd': 'prod-eu',
      '/aws/containerinsights/prod-us/dataplane': 'prod-us',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          INCIDENT_WINDOW_MINUTES: '30',
          CONFIG_VERSION: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PodDoctorConfig'), 'Version'] },
        }),
      },
    });
  });

  it('lets the ingest function only put/update incident rows and put rejected records', () => {
    const ingestPolicy = identityStatements(templateJson).filter((s) => s.logicalId.includes('DetectionIngest'));
    const actions = ingestPolicy.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action);
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 's3:PutObject', 'states:StartExecution']),
    );
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions).not.toContain('dynamodb:DeleteItem');
    const s3 = ingestPolicy.find((s) => s.Action.includes('s3:PutObject'));
    expect(JSON.stringify(s3?.Resource)).toContain('/rejected/*');
  });

  it('sends failed asynchronous invocations to the dead-letter queue after two retries', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [detectionQueue, 'Arn'] } } },
    });
  });
});
