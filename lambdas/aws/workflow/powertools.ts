import { parseWorkflowConfig, type WorkflowConfig } from '../../core/workflow-config.js';

// The workflow functions' configuration, without any SDK client: a function that does not use the
// incident table (remedy) imports this, not runtime.ts. Logger, Metrics and Tracer are the shared ones.

export { logger, metrics, tracer } from '../powertools.js';

let config: WorkflowConfig | undefined;
/** The deployment's workflow configuration (WORKFLOW_CONFIG), parsed once. */
export function workflowConfig(): WorkflowConfig {
  config ??= parseWorkflowConfig(process.env.WORKFLOW_CONFIG);
  return config;
}
