import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app.js';
import { CONFIG_CONTEXT_KEY, ConfigError } from '../../lib/config.js';
import { DEPLOY_ENV, synth, synthIn } from '../support/synth.js';

const cluster = (region?: string) => ({
  name: 'prod-eu',
  ...(region ? { region } : {}),
  logGroups: ['/aws/containerinsights/prod-eu/dataplane'],
});

function appFor(config: unknown, env = DEPLOY_ENV) {
  return createApp({ context: { [CONFIG_CONTEXT_KEY]: config, 'aws:cdk:bundling-stacks': [] } }, env);
}

describe('clusters[].region: only the stack region works', () => {
  it('refuses at synth a cluster region other than the stack region, naming the entry and why', () => {
    const error = (() => {
      try {
        synthIn({ clusters: [cluster('us-west-2')] }, DEPLOY_ENV);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(
      'pod-doctor.clusters[0].region: "us-west-2" is not the stack\'s region "eu-west-1"; pod-doctor watches clusters in the region it is deployed to',
    );
  });

  it('accepts the stack region itself', () => {
    expect(() => synthIn({ clusters: [cluster('eu-west-1')] }, DEPLOY_ENV)).not.toThrow();
  });

  it('environment-agnostic: a template rule refuses the deployment in any other region, with the message', () => {
    const { templateJson } = synthIn({ clusters: [cluster('us-west-2')] }, {});
    const rules = templateJson.Rules as Record<
      string,
      { Assertions: { Assert: unknown; AssertDescription: string }[] }
    >;
    const assertions = Object.values(rules).flatMap((r) => r.Assertions);
    expect(assertions).toContainEqual({
      Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-west-2'] },
      AssertDescription: expect.stringContaining('deploy one pod-doctor stack per region'),
    });
  });
});

describe('the pull-through cache secret: in the stack’s account and Region', () => {
  const ACCOUNT = '111122223333';
  const REGION = 'eu-west-1';
  const caching = (credentialArn: string) => ({
    ...cluster(),
    remediation: { pullThroughCache: { credentialArn } },
  });
  const secret = (region: string, account: string) =>
    `arn:aws:secretsmanager:${region}:${account}:secret:ecr-pullthroughcache/hub-Xy12Ab`;

  it('refuses at synth a secret of another Region or account, naming the entry and why', () => {
    const refused = (arn: string) => {
      try {
        synthIn({ clusters: [caching(arn)] }, { account: ACCOUNT, region: REGION });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    };
    const region = refused(secret('us-west-2', ACCOUNT));
    expect(region).toBeInstanceOf(ConfigError);
    expect(region?.message).toContain(
      `pod-doctor.clusters[0].remediation.pullThroughCache.credentialArn: the secret is in ${ACCOUNT}/us-west-2, the stack in ${ACCOUNT}/${REGION}`,
    );
    expect(refused(secret(REGION, '444455556666'))?.message).toContain('the secret is in 444455556666/');
    expect(refused(secret(REGION, ACCOUNT))).toBeUndefined();
  });

  it('environment-agnostic: a template rule refuses the deployment elsewhere, with the message', () => {
    const { templateJson } = synthIn({ clusters: [caching(secret('us-west-2', '444455556666'))] }, {});
    const assertions = Object.values(templateJson.Rules as Record<string, { Assertions: unknown[] }>).flatMap(
      (r) => r.Assertions,
    );
    expect(assertions).toContainEqual({
      Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-west-2'] },
      AssertDescription: expect.stringContaining('credentialArn is a secret in us-west-2'),
    });
    expect(assertions).toContainEqual({
      Assert: { 'Fn::Equals': [{ Ref: 'AWS::AccountId' }, '444455556666'] },
      AssertDescription: expect.stringContaining('is a secret of account 444455556666'),
    });
  });
});

describe('IAM events outside us-east-1', () => {
  it('says plainly at synth that node-role policy changes are not seen when nothing forwards them', () => {
    const { stack } = appFor({ clusters: [cluster()] });
    Annotations.fromStack(stack).hasWarning(
      '*',
      Match.stringLikeRegexp('IAM events .* reach EventBridge in us-east-1 only: in eu-west-1 pod-doctor does not see'),
    );
  });

  it('forwardIamEvents deploys a us-east-1 stack whose rules forward the IAM patterns to the stack region bus', () => {
    const { app, stack } = appFor({ clusters: [cluster()], forwardIamEvents: true });
    app.synth();
    const forwarder = app.node.findChild('PodDoctorIamEvents') as import('aws-cdk-lib').Stack;
    expect(forwarder.region).toBe('us-east-1');
    expect(forwarder.account).toBe(DEPLOY_ENV.account);
    const t = Template.fromStack(forwarder);
    t.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({ source: ['aws.iam'], 'detail-type': ['AWS API Call via CloudTrail'] }),
    });
    // Undeliverable events go to a dead-letter queue of the forwarder stack itself.
    const queues = Object.keys(t.findResources('AWS::SQS::Queue'));
    for (const rule of Object.values(t.findResources('AWS::Events::Rule'))) {
      for (const target of rule.Properties.Targets as { DeadLetterConfig?: { Arn: { 'Fn::GetAtt': string[] } } }[]) {
        const [queue, attribute] = target.DeadLetterConfig?.Arn['Fn::GetAtt'] ?? [];
        expect(queues).toContain(queue);
        expect(attribute).toBe('Arn');
      }
    }
    const target = JSON.stringify(Object.values(t.findResources('AWS::Events::Rule'))[0]);
    expect(target).toContain(':events:eu-west-1:111122223333:event-bus/default');
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('IAM events'));
  });

  it('the forwarder is one stack per account (its name says which), serving every Region listed, five targets a rule', () => {
    const regions = [
      'ap-southeast-2',
      'ca-central-1',
      'eu-central-1',
      'eu-west-1',
      'us-east-1',
      'us-west-2',
      'sa-east-1',
    ];
    const { app } = appFor({
      clusters: [cluster()],
      forwardIamEvents: regions,
      notificationEmails: ['ops@example.com'],
    });
    const assembly = app.synth();
    const forwarder = app.node.findChild('PodDoctorIamEvents') as import('aws-cdk-lib').Stack;
    expect(forwarder.stackName).toBe('PodDoctorIamEvents-111122223333');
    const t = Template.fromStack(forwarder);
    const targets = Object.values(t.findResources('AWS::Events::Rule')).map((r) =>
      (r.Properties.Targets as { Arn: unknown }[]).map(
        (x) => JSON.stringify(x.Arn).match(/:events:([a-z0-9-]+):/)?.[1],
      ),
    );
    // 6 Regions besides us-east-1 (where the events already are): 5 on one rule, 1 on another.
    expect(targets.map((x) => x.length).sort()).toEqual([1, 5]);
    expect(targets.flat().sort()).toEqual(regions.filter((r) => r !== 'us-east-1').sort());
    // The same list deployed from another Region synthesizes the same forwarder: no Region retargets another.
    const other = appFor(
      { clusters: [], forwardIamEvents: regions, notificationEmails: ['ops@example.com'] },
      { account: '111122223333', region: 'us-west-2' },
    ).app.synth();
    const template = (a: typeof assembly) => a.getStackByName('PodDoctorIamEvents-111122223333').template;
    expect(template(other)).toEqual(template(assembly));
  });

  it('forwardIamEvents listing Regions without this stack’s Region is a configuration error', () => {
    expect(() => appFor({ clusters: [cluster()], forwardIamEvents: ['us-west-2'] })).toThrow(
      /forwardIamEvents: lists \["us-west-2"\] without this stack's Region "eu-west-1"/,
    );
    expect(() => appFor({ clusters: [cluster()], forwardIamEvents: ['mars-1'] })).toThrow(
      /forwardIamEvents\[0\]: must be an AWS region code/,
    );
    expect(() => appFor({ clusters: [cluster()], forwardIamEvents: 'yes' })).toThrow(
      /forwardIamEvents: "yes" is not allowed; allowed values: true \| false \| a list of Region codes/,
    );
  });

  it('what the forwarder cannot deliver alarms, through a topic of its own Region that its policies let CloudWatch use', () => {
    const { app } = appFor({ clusters: [cluster()], forwardIamEvents: true, notificationEmails: ['ops@example.com'] });
    app.synth();
    const t = Template.fromStack(app.node.findChild('PodDoctorIamEvents') as import('aws-cdk-lib').Stack);
    const queues = Object.keys(t.findResources('AWS::SQS::Queue'));
    const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(queues.length);
    for (const a of alarms) {
      expect(JSON.stringify(a.Properties.Dimensions)).toMatch(new RegExp(queues.join('|')));
      expect(a.Properties.AlarmActions).toEqual([{ Ref: Object.keys(t.findResources('AWS::SNS::Topic'))[0] }]);
    }
    t.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  it('forwardIamEvents without a known account and region is a configuration error', () => {
    expect(() => appFor({ clusters: [cluster()], forwardIamEvents: true }, {})).toThrow(
      /pod-doctor\.forwardIamEvents: needs the stack's account and region/,
    );
  });

  it('in us-east-1 there is nothing to forward and nothing to warn about', () => {
    const { app, stack } = appFor(
      { clusters: [cluster()], forwardIamEvents: true },
      { account: '111122223333', region: 'us-east-1' },
    );
    expect(app.node.tryFindChild('PodDoctorIamEvents')).toBeUndefined();
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('IAM events'));
    expect(() => synth({ clusters: [cluster()] })).not.toThrow();
  });
});
