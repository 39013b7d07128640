import {
  APPROVAL_ONLY_BY_HUMANS,
  APPROVAL_STATE,
  agentRequestOf,
  type RequestAnswer,
} from '../cli/mcp/action-requests.js';
import { IncidentNotFoundError, IncidentReader } from '../cli/mcp/incident-reader.js';
import type { McpDeps } from '../cli/mcp/server.js';
import type { AgentRequest } from '../lambdas/core/door/agent-request.js';
import { healthyAccount } from '../local/account-snapshot.js';
import { freshTable } from '../local/incident-table.js';
import { mockAccount } from '../local/mock-account.js';
import { runScenarios } from './run.js';
import type { Scenario } from './scenario-kit.js';
import { SCENARIOS } from './scenarios.js';
import { evidenceS3 } from './voices.js';

/** Scenarios `pod-doctor mcp --demo` serves by default: a repair asked for and verified, a remedy that failed verification. */
export const MCP_DEMO_SCENARIOS = ['pid-exhaustion', 'cni-policy-blocked-by-boundary'];

/**
 * The MCP server's data without an AWS account: the incidents of demo scenarios run through the
 * real pipeline on this machine (their incident-table rows in dynalite, their evidence objects),
 * read by the same IncidentReader as a deployment's, and the recorded account for `diagnose`.
 * The scenarios run once, in the background, on the first tool call that needs them.
 */
export function demoMcpDeps(version: string, names: readonly string[] = MCP_DEMO_SCENARIOS): McpDeps {
  let ready: Promise<IncidentReader> | undefined;
  /** Which scenario opened each incident (a request runs that scenario's incident again). */
  const scenarioOf = new Map<string, Scenario>();
  const seed = async () => {
    const scenarios = SCENARIOS.filter((s) => names.includes(s.name));
    const results = await runScenarios(scenarios, { keepRecords: true });
    for (const [i, r] of results.entries())
      for (const row of r.records?.rows ?? []) if (row.incidentId) scenarioOf.set(String(row.incidentId), scenarios[i]);
    const table = await freshTable('pod-doctor-mcp-demo');
    const evidence = new Map<string, string>();
    let evidenceBucket = '';
    for (const r of results) {
      for (const row of r.records?.rows ?? []) await table.put(row);
      for (const [k, v] of r.records?.evidence ?? []) evidence.set(k, v);
      evidenceBucket = r.records?.evidenceBucket ?? evidenceBucket;
    }
    const s3 = evidenceS3(evidence, evidenceBucket);
    return new IncidentReader({ ddb: table.client, s3, tableName: table.name, evidenceBucket });
  };
  const account = mockAccount(healthyAccount());
  return {
    incidents: () => {
      ready ??= seed();
      return ready;
    },
    account: async () => account,
    requests: async () => ({
      request: async (incidentId, note) => {
        ready ??= seed();
        await ready;
        const s = scenarioOf.get(incidentId);
        if (!s) throw new IncidentNotFoundError(`no incident ${incidentId} in the demo`);
        return demoRequest(s, incidentId, agentRequestOf(note, new Date()));
      },
    }),
    region: 'eu-west-1',
    version,
  };
}

/**
 * An agent's request in the demo: the scenario's incident runs again through the real pipeline as
 * an agent's request. The run asks for approval (the approval row and the e-mail with the signed
 * link are written); no one answers, so the local run then ends at the deadline without a change.
 */
async function demoRequest(s: Scenario, incidentId: string, request: AgentRequest): Promise<RequestAnswer> {
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
