import { App, type AppProps, type Environment, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CONFIG_CONTEXT_KEY, ConfigError, parseConfig } from './config.js';
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
  if (config.forwardIamEvents) addIamEventForwarder(app, stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack };
}

/** The us-east-1 stack that forwards IAM events to the stack's region (when that is elsewhere). */
function addIamEventForwarder(app: App, stack: PodDoctorStack): void {
  if (Token.isUnresolved(stack.account) || Token.isUnresolved(stack.region))
    throw new ConfigError([
      `${CONFIG_CONTEXT_KEY}.forwardIamEvents: needs the stack's account and region at synth (cdk deploy sets CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION from your credentials)`,
    ]);
  if (stack.region === IAM_EVENTS_REGION) return;
  new IamEventForwarderStack(app, 'PodDoctorIamEvents', {
    account: stack.account,
    targetRegion: stack.region,
    description: `pod-doctor: forwards IAM events from ${IAM_EVENTS_REGION} to ${stack.region}`,
  });
}
