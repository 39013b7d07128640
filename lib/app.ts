import { App, type AppProps, type Environment, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CONFIG_CONTEXT_KEY, ConfigError, type PodDoctorConfig, parseConfig } from './config.js';
import { IamEventForwarderStack } from './iam-event-forwarder-stack.js';
import { PodDoctorStack } from './pod-doctor-stack.js';
import { IAM_EVENTS_REGION } from './regions.js';

/** The environment the CDK CLI gives the app: `cdk deploy` with credentials sets both variables. */
export function cliEnvironment(): Environment {
  return { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
}

/**
 * Builds the pod-doctor CDK app: configuration from the `pod-doctor` context key, one stack,
 * cdk-nag AwsSolutions and Serverless checks on every synth (unacknowledged errors fail it).
 * @param env the stack's environment; defaults to what the CDK CLI set ({@link cliEnvironment})
 */
export function createApp(
  props: AppProps = {},
  env: Environment = cliEnvironment(),
): { app: App; stack: PodDoctorStack } {
  const app = new App(props);
  const config = parseConfig(app.node.tryGetContext(CONFIG_CONTEXT_KEY));
  const stack = new PodDoctorStack(app, 'PodDoctor', {
    config,
    description: 'pod-doctor: finds and repairs why EKS pods never start',
    env,
  });
  if (config.forwardIamEvents !== false) addIamEventForwarder(app, stack, config);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack };
}

/**
 * The account's us-east-1 stack that forwards IAM events to the Regions pod-doctor runs in (this
 * stack's, or the list `forwardIamEvents` gives, which must include it).
 */
function addIamEventForwarder(app: App, stack: PodDoctorStack, config: PodDoctorConfig): void {
  const key = `${CONFIG_CONTEXT_KEY}.forwardIamEvents`;
  if (Token.isUnresolved(stack.account) || Token.isUnresolved(stack.region))
    throw new ConfigError([
      `${key}: needs the stack's account and region at synth (cdk deploy sets CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION from your credentials)`,
    ]);
  const listed = config.forwardIamEvents === true ? [stack.region] : [...(config.forwardIamEvents || [])];
  if (!listed.includes(stack.region))
    throw new ConfigError([
      `${key}: lists ${JSON.stringify(listed)} without this stack's Region "${stack.region}"; list every Region pod-doctor runs in in this account: the account's one forwarder serves exactly the Regions listed, so a deployment from a Region missing from the list would stop forwarding to it`,
    ]);
  const targetRegions = [...new Set(listed)].filter((r) => r !== IAM_EVENTS_REGION).sort();
  if (!targetRegions.length) return;
  new IamEventForwarderStack(app, 'PodDoctorIamEvents', {
    account: stack.account,
    targetRegions,
    notificationEmails: config.notificationEmails,
    description: `pod-doctor: forwards IAM events from ${IAM_EVENTS_REGION} to ${targetRegions.join(', ')}`,
  });
}
