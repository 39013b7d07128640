import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CONFIG_CONTEXT_KEY, parseConfig } from './config.js';
import { PodDoctorStack } from './pod-doctor-stack.js';

/**
 * Builds the pod-doctor CDK app: configuration from the `pod-doctor` context key, one stack,
 * cdk-nag AwsSolutions and Serverless checks on every synth (unacknowledged errors fail it).
 */
export function createApp(props: AppProps = {}): { app: App; stack: PodDoctorStack } {
  const app = new App(props);
  const config = parseConfig(app.node.tryGetContext(CONFIG_CONTEXT_KEY));
  const stack = new PodDoctorStack(app, 'PodDoctor', {
    config,
    description: 'pod-doctor: finds and repairs why EKS pods never start',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack };
}
