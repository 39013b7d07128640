import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { executionTimeout, pollBudgets } from '../../lib/constructs/incident-workflow.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { identityStatements } from '../support/iam.js';
import { synth } from '../support/synth.js';

/** AWS fidelity: what a real account needs from the template, as template assertions. */
const config = {
  clusters: [
    { name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane', '/eks/prod-eu/ipamd'] },
    { name: 'prod-eu-2', logGroups: ['/aws/containerinsights/prod-eu-2/dataplane'] },
  ],
};

describe('AWS fidelity of the template', () => {
  const { template, templateJson } = synth(config);
  const resources = templateJson.Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown>; DependsOn?: string[] }
  >;

  it('makes each log group ready (created if missing, refused without a free filter slot) before subscribing', () => {
    // One resource for every group (a per-group one would cost a stack resource per cluster).
    const ready = Object.entries(resources).filter(([, r]) => r.Type === 'Custom::PodDoctorLogGroupReady');
    expect(ready).toHaveLength(1);
    expect((ready[0][1].Properties.LogGroupNames as string[]).sort()).toEqual([
      '/aws/containerinsights/prod-eu-2/dataplane',
      '/aws/containerinsights/prod-eu/dataplane',
      '/eks/prod-eu/ipamd',
    ]);
    const filters = Object.values(resources).filter((r) => r.Type === 'AWS::Logs::SubscriptionFilter');
    expect(filters).toHaveLength(3);
    for (const filter of filters) expect(filter.DependsOn).toContain(ready[0][0]);
    const grants = identityStatements(templateJson).filter((s) => s.Action.includes('logs:CreateLogGroup'));
    expect(grants).toHaveLength(1);
    expect(JSON.stringify(grants[0].Resource)).toContain('log-group:/eks/prod-eu/ipamd');
    expect(JSON.stringify(grants[0].Resource)).not.toMatch(/log-group:\*/);
  });

  it('alarms on the first message in any dead-letter queue (ingest, delivery, command events), to the notification topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (a) => (a as { Properties: Record<string, unknown> }).Properties,
    );
    // Dead-letter queues only: ingest, delivery, command events (the chat approvals' queues exist only
    // with a Slack or Teams channel, which this configuration has none of).
    const queues = Object.keys(template.findResources('AWS::SQS::Queue')).filter((id) => /DeadLetter/.test(id));
    expect(queues).toHaveLength(3);
    for (const q of queues) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Namespace: 'AWS/SQS',
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [q, 'QueueName'] } }],
          AlarmActions: [{ Ref: expect.stringMatching(/Topic/) }],
        }),
      );
    }
    // CloudWatch alarms may publish to the KMS-encrypted topic only when the key lets them.
    const key = Object.values(template.findResources('AWS::KMS::Key'))[0] as {
      Properties: { KeyPolicy: { Statement: { Principal: { Service?: string | string[] }; Action: string[] }[] } };
    };
    const forCloudWatch = key.Properties.KeyPolicy.Statement.filter((s) =>
      [s.Principal.Service].flat().includes('cloudwatch.amazonaws.com'),
    );
    expect(forCloudWatch.flatMap((s) => s.Action)).toEqual(
      expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']),
    );
  });

  it('delivers server access logs through a bucket policy, not the legacy ACL (cfn-lint W3045)', () => {
    for (const b of Object.values(template.findResources('AWS::S3::Bucket')))
      expect((b as { Properties: Record<string, unknown> }).Properties.AccessControl).toBeUndefined();
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'logging.s3.amazonaws.com' }, Action: 's3:PutObject' }),
        ]),
      },
    });
  });

  it('sends the document version the deployment wrote ($LATEST), explicitly, in every SendCommand', () => {
    // Only the door sends commands (the state machine calls no SSM API); its one SendCommand names the version.
    const definition = JSON.stringify(
      (Object.values(template.findResources('AWS::StepFunctions::StateMachine'))[0] as { Properties: unknown })
        .Properties,
    );
    expect(definition).not.toContain(':states:::aws-sdk:ssm:');
    const source = readFileSync(join(PROJECT_ROOT, 'lambdas/aws/door/node-commands.ts'), 'utf8');
    const sends = [...source.matchAll(/new SendCommandCommand\(\{[^}]*\}/g)].map((m) => m[0]);
    expect(sends).toHaveLength(1);
    for (const send of sends) expect(send).toContain("DocumentVersion: '$LATEST'");
  });

  it('times out after the approval wait plus every command budget, not after a fixed 6 h', () => {
    const sevenDays = 7 * 24 * 60;
    const { templateJson: long } = synth({ ...config, limits: { approvalTimeoutMinutes: sevenDays } });
    const definition = JSON.stringify(
      (long.Resources as Record<string, { Type: string; Properties: unknown }>)
        ? Object.values(long.Resources as Record<string, { Type: string; Properties: unknown }>).find(
            (r) => r.Type === 'AWS::StepFunctions::StateMachine',
          )?.Properties
        : {},
    );
    // The approval task's TimeoutSeconds is the 7 days; the execution's is the largest: two approval
    // waits (the restart's, then the drain's), two actions, four probes and the window.
    const timeout = Math.max(...[...definition.matchAll(/\\"TimeoutSeconds\\":(\d+)/g)].map((m) => Number(m[1])));
    expect(timeout).toBeGreaterThan(2 * sevenDays * 60 + 2 * 132 * 5 + 4 * 36 * 5 + 120);
    expect(executionTimeout(Duration.hours(1), Duration.minutes(2), pollBudgets(Duration.seconds(5))).toHours()).toBe(
      6,
    );
  });

  it('writes no hard-coded arn:aws: partition into IAM policies (China, GovCloud)', () => {
    const literal = identityStatements(templateJson).filter((s) => JSON.stringify(s.Resource).includes('"arn:aws:'));
    expect(literal.map((s) => `${s.logicalId}: ${JSON.stringify(s.Resource)}`)).toEqual([]);
  });
});
