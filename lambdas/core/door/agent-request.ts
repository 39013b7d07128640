import * as z from 'zod/mini';
import type { ClassMode, FailureClass } from '../contract/failure-classes.js';
import type { RemedyTier } from '../remedy/apply-path.js';
import '../text/zod-english.js';

/**
 * An action an agent asked for (the MCP server's `request_action`): it starts the incident's
 * workflow again on pod-doctor's own stored input (the targets stay the ones pod-doctor resolved;
 * the agent names only the incident), and in that run every change asks a human first. An agent can
 * only ask: the approval is the signed link pod-doctor e-mails (its key never leaves the functions),
 * and no tool approves or acts.
 */

export const AGENT_NOTE_MAX = 500;

/** What the run carries of the agent's request (its note is the agent's text: shown, never acted on). */
export const agentRequestSchema = z.object({
  by: z.literal('mcp'),
  at: z.string().check(z.minLength(1), z.maxLength(40)),
  note: z.string().check(z.maxLength(AGENT_NOTE_MAX)),
});
export type AgentRequest = z.output<typeof agentRequestSchema>;

/** The part of a workflow configuration an agent's request changes (workflow-config.ts's modes and remedies). */
interface ActionModes {
  readonly modes: Readonly<Record<FailureClass, ClassMode>>;
  readonly remedies: Readonly<Partial<Record<FailureClass, RemedyTier>>>;
}

/**
 * The configuration of a run an agent asked for: the class's `auto` mode and `auto` remedy tier
 * become `approve` (observe and dry-run stay: an agent's request never makes pod-doctor do more).
 * Generic over the configuration so this module needs nothing of workflow-config.ts (which embeds
 * {@link agentRequestSchema}).
 */
export function askFirst<C extends ActionModes>(config: C, cls: FailureClass): C {
  const mode = config.modes[cls] === 'auto' ? 'approve' : config.modes[cls];
  const remedy = config.remedies[cls] === 'auto' ? 'approve' : config.remedies[cls];
  return {
    ...config,
    modes: { ...config.modes, [cls]: mode },
    remedies: { ...config.remedies, ...(remedy ? { [cls]: remedy } : {}) },
  };
}

/** The execution name of an agent's request: the incident id and when, within Step Functions' 80 characters. */
export function agentExecutionName(incidentId: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14);
  const base = incidentId.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 80 - stamp.length - 7);
  return `${base}-agent-${stamp}`;
}
