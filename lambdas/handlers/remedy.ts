import { lazyClients } from '../aws/checks/handler-kit.js';
import { runRemedy } from '../aws/remedy/service.js';
import { logger, workflowConfig } from '../aws/workflow/runtime.js';

const clients = lazyClients();

/** Workflow steps "Prepare remedy" (re-check and dry-run diff) and "Apply remedy" (change, verify, roll back). */
export const handler = async (event: unknown) => {
  const record = await runRemedy(event, { clients, config: workflowConfig(), now: Date.now });
  logger.info('remedy', { remedy: record.remedy, status: record.status, reason: record.reason });
  return record;
};
