import { IncidentReader } from '../cli/mcp/incident-reader.js';
import type { McpDeps } from '../cli/mcp/server.js';
import { healthyAccount } from '../local/account-snapshot.js';
import { freshTable } from '../local/incident-table.js';
import { mockAccount } from '../local/mock-account.js';
import { runScenarios } from './run.js';
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
  const seed = async () => {
    const results = await runScenarios(
      SCENARIOS.filter((s) => names.includes(s.name)),
      { keepRecords: true },
    );
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
    region: 'eu-west-1',
    version,
  };
}
