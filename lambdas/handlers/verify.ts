import { documentClient, workflowConfig } from '../aws/workflow/runtime.js';
import { type VerifyInput, verifyRepair } from '../aws/workflow/verify.js';

/** Workflow step "Check repair": probe clean and no new failure lines since the repair. */
export const handler = async (event: VerifyInput) =>
  verifyRepair(event, { ddb: documentClient(), tableName: workflowConfig().tableName });
