import * as z from 'zod/mini';
import { documentClient, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';
import { verifyRepair } from '../aws/workflow/verify.js';
import '../core/zod-english.js';

const text = () => z.string().check(z.minLength(1));

const commandResult = z.looseObject({
  status: z.string(),
  stdout: z.optional(z.string()),
  stderr: z.optional(z.string()),
  responseCode: z.optional(z.number()),
  commandId: z.optional(z.string()),
  error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
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
  incidentKey: text(),
  class: text(),
  actionSentAt: text(),
  verifyProbe: commandResult,
  pods: z.optional(z.looseObject({ watched: z.optional(z.boolean()), verdict: z.optional(podVerdict) })),
});

/** Workflow step "Check repair": probe clean and no new failure lines since the repair. */
export const createHandler = (deps: () => Promise<Parameters<typeof verifyRepair>[1]>) =>
  withPowertools(verifyEventSchema, async (input) => verifyRepair(input, await deps()));

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  tableName: (await workflowConfig()).tableName,
}));
