#!/usr/bin/env node
/**
 * pod-doctor with chat and paging: one EKS cluster, e-mail, a Slack channel and a Microsoft Teams
 * channel (Amazon Q Developer in chat applications) and PagerDuty (Events API v2). Every id comes
 * from cdk.json (`notifications`); the PagerDuty integration key stays in Secrets Manager.
 *
 *   cd examples/notifications && npx cdk synth
 *
 * In your own app, import from 'pod-doctor' instead of '../../lib/index.js'.
 */
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { PodDoctor, type SlackChannel, type TeamsChannel } from '../../lib/index.js';

interface ExampleSettings {
  readonly cluster: string;
  readonly notificationEmails: string[];
  readonly slack: SlackChannel;
  readonly teams: TeamsChannel;
  readonly pagerDutyRoutingKeySecretArn: string;
}

const app = new App();
const settings = app.node.getContext('notifications') as ExampleSettings;
const stack = new Stack(app, 'PodDoctorNotifications', {
  description: 'pod-doctor with Slack, Microsoft Teams and PagerDuty',
  // What `cdk deploy` sets from your credentials; environment-agnostic without them.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

new PodDoctor(stack, 'PodDoctor', {
  clusters: [{ name: settings.cluster, logGroups: [`/aws/containerinsights/${settings.cluster}/dataplane`] }],
  notificationEmails: settings.notificationEmails,
  channels: {
    // The workspace and Teams tenant are authorized once in the Amazon Q Developer console first.
    slack: [settings.slack],
    teams: [settings.teams],
    pagerDuty: {
      // A secret like {"routingKey": "<32-character integration key of an Events API v2 integration>"}.
      routingKey: Secret.fromSecretCompleteArn(stack, 'PagerDutyRoutingKey', settings.pagerDutyRoutingKeySecretArn),
      jsonField: 'routingKey',
    },
  },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
app.synth();
