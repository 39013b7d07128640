import * as z from 'zod';
import { documentClient, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { verifyRepair } from '../aws/workflow/verify.js';

const commandResult = z.looseObject({
  status: z.string(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  responseCode: z.number().optional(),
  commandId: z.string().optional(),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});

const podVerdict = z.object({
  started: z.array(z.object({ pod: z.string(), afterSeconds: z.number() })),
  stillStuck: z.array(z.string()),
  gone: z.array(z.string()),
  verified: z.boolean(),
  windowSeconds: z.number(),
});

/** What "Check repair" receives: the incident's key and class, when the repair was sent, the probe after it, the pods watched. */
export const verifyEventSchema = z.looseObject({
  incidentKey: z.string().min(1),
  class: z.string().min(1),
  actionSentAt: z.string().min(1),
  verifyProbe: commandResult,
  pods: z.looseObject({ watched: z.boolean().optional(), verdict: podVerdict.optional() }).optional(),
});

/** Workflow step "Check repair": probe clean and no new failure lines since the repair. */
export const createHandler = (deps: () => Parameters<typeof verifyRepair>[1]) =>
  withPowertools(verifyEventSchema, async (input) => verifyRepair(input, deps()));

export const handler = createHandler(() => ({ ddb: documentClient(), tableName: workflowConfig().tableName }));
