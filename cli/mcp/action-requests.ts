import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { AGENT_NOTE_MAX, type AgentRequest, agentExecutionName } from '../../lambdas/core/door/agent-request.js';
import { outboundText } from '../../lambdas/core/text/outbound.js';
import type { IncidentReader } from './incident-reader.js';

/**
 * The MCP server's one write: an agent asks pod-doctor to act on an incident. The request starts the
 * incident's workflow again on the input pod-doctor itself stored for the incident's last run (the
 * targets are pod-doctor's own; the agent names only the incident and adds a note), marked as an
 * agent's request, so every change in that run waits for a human's approval (agent-request.ts
 * askFirst). The answer says whether the run now waits for that approval. Nothing here approves.
 */

/** What a request became. */
export interface RequestAnswer {
  readonly incidentId: string;
  readonly execution: string;
  /**
   * waiting-for-approval: a change waits for a human (the signed link pod-doctor e-mailed);
   * ended-without-asking: the run ended without planning a change that needs one (observe mode,
   * nothing to do, blocked); running: no approval asked yet within the wait.
   */
  readonly status: 'waiting-for-approval' | 'ended-without-asking' | 'running';
  readonly detail: string;
  readonly approval: string;
}

export const APPROVAL_ONLY_BY_HUMANS =
  'Only a human approves: through the signed, expiring link pod-doctor e-mails to its approvers (its key never leaves pod-doctor). No tool approves or acts, and an agent cannot.';

/** The states in which the workflow waits for a human's approval (before the action door: "Request … approval"; the door's "Door: ask"). */
export const APPROVAL_STATE = /^(Request .*approval|Door: ask)$/;

export interface ActionRequester {
  request(incidentId: string, note: string): Promise<RequestAnswer>;
}

/** The request as the run carries it: the agent's note one line, redacted and bounded. */
export function agentRequestOf(note: string, at: Date): AgentRequest {
  return { by: 'mcp', at: at.toISOString(), note: outboundText(note).slice(0, AGENT_NOTE_MAX) };
}

/** An incident's last run could not be found again, or its input read. */
export class RequestSourceError extends Error {
  override readonly name = 'RequestSourceError';
}

export interface SfnRequesterDeps {
  readonly sfn: SFNClient;
  readonly incidents: () => Promise<Pick<IncidentReader, 'get'>>;
  readonly now: () => Date;
  /** How long the request waits to see the approval asked. @default 60 s */
  readonly waitMs?: number;
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Requests through the deployment's state machine (StartExecution on the incident's stored input). */
export class StepFunctionsRequester implements ActionRequester {
  constructor(private readonly deps: SfnRequesterDeps) {}

  async request(incidentId: string, note: string): Promise<RequestAnswer> {
    const { runs } = await (await this.deps.incidents()).get(incidentId);
    const last = runs[0];
    const before = await this.deps.sfn.send(new DescribeExecutionCommand({ executionArn: last.executionArn }));
    if (!before.input || !before.stateMachineArn)
      throw new RequestSourceError(`the last run of ${incidentId} has no readable input (${last.executionArn})`);
    const at = this.deps.now();
    const input = { ...(JSON.parse(before.input) as Record<string, unknown>), agentRequest: agentRequestOf(note, at) };
    const started = await this.deps.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: before.stateMachineArn,
        name: agentExecutionName(incidentId, at),
        input: JSON.stringify(input),
      }),
    );
    return this.watch(incidentId, started.executionArn ?? '');
  }

  /** Reads the new run until it asks for an approval, ends, or the wait is over. */
  private async watch(incidentId: string, execution: string): Promise<RequestAnswer> {
    const { waitMs = 60_000, pollMs = 2_000 } = this.deps;
    const sleep = this.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const answer = (status: RequestAnswer['status'], detail: string): RequestAnswer => ({
      incidentId,
      execution,
      status,
      detail,
      approval: APPROVAL_ONLY_BY_HUMANS,
    });
    for (let waited = 0; ; waited += pollMs) {
      const history = await this.deps.sfn.send(
        new GetExecutionHistoryCommand({ executionArn: execution, reverseOrder: true, maxResults: 100 }),
      );
      const asked = (history.events ?? []).find((e) => APPROVAL_STATE.test(e.stateEnteredEventDetails?.name ?? ''));
      if (asked)
        return answer('waiting-for-approval', `${asked.stateEnteredEventDetails?.name}: the approvers were e-mailed`);
      const d = await this.deps.sfn.send(new DescribeExecutionCommand({ executionArn: execution }));
      if (d.status !== 'RUNNING')
        return answer('ended-without-asking', `the run ended (${d.status}) without a change to approve`);
      if (waited >= waitMs) return answer('running', 'no approval asked yet: read the incident again later');
      await sleep(pollMs);
    }
  }
}
