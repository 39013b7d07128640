import * as z from 'zod/mini';
import { incidentRefSchema } from '../../core/door/action-request.js';
import { doorStateSchema } from '../../core/door/state.js';
import '../../core/text/zod-english.js';

/** What the door Task sends: the door's part of the state, the incident, the execution, the poll budgets. */
export const doorInputSchema = z.object({
  door: doorStateSchema,
  incident: incidentRefSchema,
  execution: z.string().check(z.minLength(1), z.maxLength(2_048)),
  region: z.string().check(z.regex(/^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/)),
  polls: z.object({ probe: z.int().check(z.minimum(1)), action: z.int().check(z.minimum(1)) }),
  /** Seconds a poll stands for (the state machine's poll interval): a command's budget is its polls × this. */
  pollSeconds: z._default(z.int().check(z.minimum(1)), 5),
});
export type DoorInput = z.output<typeof doorInputSchema>;
