import { withPowertools } from '../aws/runtime/powertools.js';
import { verifyEventSchema, verifyRepair } from '../aws/workflow/verify.js';

export { verifyEventSchema };

import '../core/text/zod-english.js';

/** Workflow step "Check repair": the node's own probe is clean, and the watched pods started. */
export const createHandler = () => withPowertools(verifyEventSchema, async (input) => verifyRepair(input));

export const handler = createHandler();
