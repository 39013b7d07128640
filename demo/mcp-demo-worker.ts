/**
 * The demo runtime of `pod-doctor mcp --demo`, on a worker thread: synthesizing the stack and running
 * the scenarios hold a thread for tens of seconds (CDK synthesis is synchronous), and the MCP server's
 * thread must keep answering meanwhile (pings, other tools, and the progress notifications that keep
 * a client's request timeout from firing). Messages: {id, op: 'seed' | 'request', …} in,
 * {id, value} or {id, error} out, and {status} lines as the work goes.
 */
import { parentPort } from 'node:worker_threads';
import type { RequestAnswer } from '../cli/mcp/action-requests.js';
import type { AgentRequest } from '../lambdas/core/door/agent-request.js';
import { demoRequest } from './mcp-demo-request.js';
import { runScenarios } from './run.js';
import { SCENARIOS } from './scenarios.js';

/** What the seed hands back: the incident-table rows, the evidence objects, which scenario opened each incident. */
export interface SeedRecords {
  readonly rows: Record<string, unknown>[];
  readonly evidence: [string, string][];
  readonly evidenceBucket: string;
  readonly scenarioOf: [string, string][];
}

export type EngineOp =
  | { readonly op: 'seed'; readonly names: readonly string[] }
  | { readonly op: 'request'; readonly scenario: string; readonly incidentId: string; readonly request: AgentRequest };

const port = parentPort;
const status = (line: string) => port?.postMessage({ status: line });

async function seed(names: readonly string[]): Promise<SeedRecords> {
  const scenarios = SCENARIOS.filter((s) => names.includes(s.name));
  const out: SeedRecords = { rows: [], evidence: [], evidenceBucket: '', scenarioOf: [] };
  for (const [i, s] of scenarios.entries()) {
    status(
      `running demo scenario ${i + 1} of ${scenarios.length}: ${s.name}${i === 0 ? ' (the first synthesizes the stack)' : ''}`,
    );
    const [r] = await runScenarios([s], { keepRecords: true });
    for (const row of r.records?.rows ?? []) {
      out.rows.push(row);
      if (row.incidentId) out.scenarioOf.push([String(row.incidentId), s.name]);
    }
    out.evidence.push(...(r.records?.evidence ?? []));
    if (r.records?.evidenceBucket) (out as { evidenceBucket: string }).evidenceBucket = r.records.evidenceBucket;
  }
  status(`${scenarios.length} demo scenario(s) ran`);
  return out;
}

async function run(m: EngineOp): Promise<SeedRecords | RequestAnswer> {
  if (m.op === 'seed') return seed(m.names);
  const s = SCENARIOS.find((x) => x.name === m.scenario);
  if (!s) throw new Error(`no demo scenario ${m.scenario}`);
  status(`running ${m.incidentId} again as the agent's request (demo scenario ${s.name})`);
  return demoRequest(s, m.incidentId, m.request);
}

port?.on('message', (m: EngineOp & { id: number }) => {
  run(m).then(
    (value) => port.postMessage({ id: m.id, value }),
    (e: Error) => port.postMessage({ id: m.id, error: { name: e.name, message: e.message } }),
  );
});
