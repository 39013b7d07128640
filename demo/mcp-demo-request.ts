import { APPROVAL_ONLY_BY_HUMANS, APPROVAL_STATE, type RequestAnswer } from '../cli/mcp/action-requests.js';
import type { AgentRequest } from '../lambdas/core/door/agent-request.js';
import { runScenarios } from './run.js';
import type { Scenario } from './scenario-kit.js';

/**
 * An agent's request in the demo: the scenario's incident runs again through the real pipeline as
 * an agent's request. The run asks for approval (the approval row and the e-mail with the signed
 * link are written); no one answers, so the local run then ends at the deadline without a change.
 */
export async function demoRequest(s: Scenario, incidentId: string, request: AgentRequest): Promise<RequestAnswer> {
  const [r] = await runScenarios([s], { agentRequest: request });
  const asked = r.states.find((x) => APPROVAL_STATE.test(x));
  const changed = r.actions.filter((a) => !/not run|dry-run/.test(a.status));
  return {
    incidentId,
    execution: `local run of ${incidentId} (demo)`,
    status: asked ? 'waiting-for-approval' : 'ended-without-asking',
    detail: asked
      ? `${asked}: the approvers were e-mailed the signed link. Demo: no one answers, so the local run ended at the deadline (${r.outcome}); changes made: ${changed.length ? changed.map((a) => `${a.id} ${a.status}`).join(', ') : 'none'}`
      : `the run ended without a change to approve (${r.outcome})`,
    approval: APPROVAL_ONLY_BY_HUMANS,
  };
}
