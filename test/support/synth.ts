import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../lib/app.js';
import { CONFIG_CONTEXT_KEY } from '../../lib/config.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/** The environment `cdk deploy` gives the app when it has credentials (CDK_DEFAULT_ACCOUNT/REGION). */
export const DEPLOY_ENV: Environment = { account: '111122223333', region: 'eu-west-1' };

/** The two ways the CDK CLI runs the app: without credentials (`cdk synth`) and as `cdk deploy` does. */
export const SYNTH_ENVS = [
  { name: 'environment-agnostic', env: {} as Environment },
  { name: 'as cdk deploy (CDK_DEFAULT_ACCOUNT/REGION set)', env: DEPLOY_ENV },
] as const;

/** The feature flags and settings of cdk.json, which `cdk synth` passes to the app as context. */
const CDK_JSON_CONTEXT = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: object })
  .context;

/**
 * Synthesizes the project app as `cdk synth` does (cdk.json context, cdk-nag included), minus
 * Lambda bundling, which template assertions do not need. Every call synthesizes twice —
 * environment-agnostic and as `cdk deploy` does, with CDK_DEFAULT_ACCOUNT/REGION set — and both
 * must pass cdk-nag; the template returned is the environment-agnostic one unless `deploy` is set.
 */
export function synth(
  config?: unknown,
  options: { deploy?: boolean } = {},
): { template: Template; templateJson: Record<string, unknown> } {
  const [agnostic, deploy] = SYNTH_ENVS.map(({ env }) => synthIn(config, env));
  return options.deploy ? deploy : agnostic;
}

/** One synthesis of the app in `env`, written to `outdir` when given (else a temporary directory). */
export function synthIn(
  config: unknown,
  env: Environment,
  outdir?: string,
  extraContext: Record<string, unknown> = {},
): { template: Template; templateJson: Record<string, unknown> } {
  const { app, stack } = createApp(
    {
      outdir,
      context: {
        ...CDK_JSON_CONTEXT,
        ...(config === undefined ? {} : { [CONFIG_CONTEXT_KEY]: config }),
        'aws:cdk:bundling-stacks': [],
        ...extraContext,
      },
    },
    env,
  );
  app.synth();
  const template = Template.fromStack(stack);
  return { template, templateJson: template.toJSON() };
}
