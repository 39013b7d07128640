import { documentClient, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { verifyEventSchema, verifyRepair } from '../aws/workflow/verify.js';

export { verifyEventSchema };

import '../core/zod-english.js';

/** Workflow step "Check repair": probe clean and no new failure lines since the repair. */
export const createHandler = (deps: () => Promise<Parameters<typeof verifyRepair>[1]>) =>
  withPowertools(verifyEventSchema, async (input) => verifyRepair(input, await deps()));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  tableName: (await workflowConfig()).tableName,
}));
