import type { IngestConfig } from '../incident/ingest.js';
import { logGroupClusters, type WorkflowConfig } from './workflow-config.js';

/** What the ingest domain reads: the log groups and trusted images of the deployment's configuration. */
export function ingestConfig(config: WorkflowConfig): IngestConfig {
  return {
    logGroupClusters: logGroupClusters(config),
    accountScope: 'account',
    trustedSandboxImages: config.trustedSandboxImages ?? [],
  };
}
