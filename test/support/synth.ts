import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app.js';
import { CONFIG_CONTEXT_KEY } from '../../lib/config.js';

/**
 * Synthesizes the project app exactly as `cdk synth` does (cdk-nag included), minus Lambda
 * bundling, which template assertions do not need.
 */
export function synth(config?: unknown): { template: Template; templateJson: Record<string, unknown> } {
  const { app, stack } = createApp({
    context: {
      ...(config === undefined ? {} : { [CONFIG_CONTEXT_KEY]: config }),
      'aws:cdk:bundling-stacks': [],
    },
  });
  app.synth();
  const template = Template.fromStack(stack);
  return { template, templateJson: template.toJSON() };
}
