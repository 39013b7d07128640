import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { parseWorkflowConfig, type WorkflowConfig } from '../../core/workflow-config.js';

// The workflow functions' Powertools and configuration, without any SDK client: a function that
// does not use the incident table (remedy) imports this, not runtime.ts.

export const logger = new Logger();
export const metrics = new Metrics();
export const tracer = new Tracer();

let config: WorkflowConfig | undefined;
/** The deployment's workflow configuration (WORKFLOW_CONFIG), parsed once. */
export function workflowConfig(): WorkflowConfig {
  config ??= parseWorkflowConfig(process.env.WORKFLOW_CONFIG);
  return config;
}
