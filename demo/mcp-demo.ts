import { Worker } from 'node:worker_threads';
import { agentRequestOf, type RequestAnswer } from '../cli/mcp/action-requests.js';
import { IncidentNotFoundError, IncidentReader } from '../cli/mcp/incident-reader.js';
import type { McpDeps } from '../cli/mcp/server.js';
import { healthyAccount } from '../local/account-snapshot.js';
import { freshTable } from '../local/incident-table.js';
import { mockAccount } from '../local/mock-account.js';
import type { EngineOp, SeedRecords } from './mcp-demo-worker.js';
import { evidenceS3 } from './voices.js';

/** Scenarios `pod-doctor mcp --demo` serves by default: a repair asked for and verified, a remedy that failed verification. */
export const MCP_DEMO_SCENARIOS = ['pid-exhaustion', 'cni-policy-blocked-by-boundary'];

/**
 * The worker of the compiled demo, or, from sources, a worker that registers tsx first (a worker
 * thread does not inherit the loader hooks `--import tsx` gave this one).
 */
function workerThread(): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./mcp-demo-worker.js', import.meta.url), { stdout: true });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./mcp-demo-worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(code, { eval: true, stdout: true });
}

/**
 * The demo runtime on its worker thread (demo/mcp-demo-worker.ts), started on first use: the server's
 * thread stays free to answer while scenarios run. `status` is the worker's latest line (what it runs).
 */
class DemoEngine {
  status = 'starting the demo runtime';
  private worker?: Worker;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    // stdout is the server's JSON-RPC channel: the worker's goes to stderr.
    const w = workerThread();
    w.stdout.pipe(process.stderr);
    w.on(
      'message',
      (m: { status?: string; id?: number; value?: unknown; error?: { name: string; message: string } }) => {
        if (m.status !== undefined) this.status = m.status;
        const p = m.id === undefined ? undefined : this.pending.get(m.id);
        if (!p || m.id === undefined) return;
        this.pending.delete(m.id);
        if (m.error) p.reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
        else p.resolve(m.value);
      },
    );
    w.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
      this.worker = undefined;
    });
    // The server's stdin keeps the process alive; the worker never does.
    w.unref();
    return w;
  }

  call<T>(op: EngineOp): Promise<T> {
    this.worker ??= this.start();
    const worker = this.worker;
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...op, id });
    });
  }
}

/**
 * The MCP server's data without an AWS account: the incidents of demo scenarios run through the
 * real pipeline on this machine (their incident-table rows in dynalite, their evidence objects),
 * read by the same IncidentReader as a deployment's, and the recorded account for `diagnose`.
 * The scenarios run once, on the demo runtime's thread, on the first tool call that needs them.
 */
export function demoMcpDeps(version: string, names: readonly string[] = MCP_DEMO_SCENARIOS): McpDeps {
  const engine = new DemoEngine();
  let ready: Promise<IncidentReader> | undefined;
  /** Which scenario opened each incident (a request runs that scenario's incident again). */
  const scenarioOf = new Map<string, string>();
  const seed = async () => {
    const records = await engine.call<SeedRecords>({ op: 'seed', names });
    for (const [incident, scenario] of records.scenarioOf) scenarioOf.set(incident, scenario);
    const table = await freshTable('pod-doctor-mcp-demo');
    for (const row of records.rows) await table.put(row);
    const s3 = evidenceS3(new Map(records.evidence), records.evidenceBucket);
    return new IncidentReader({ ddb: table.client, s3, tableName: table.name, evidenceBucket: records.evidenceBucket });
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
        const scenario = scenarioOf.get(incidentId);
        if (!scenario) throw new IncidentNotFoundError(`no incident ${incidentId} in the demo`);
        const request = agentRequestOf(note, new Date());
        return engine.call<RequestAnswer>({ op: 'request', scenario, incidentId, request });
      },
    }),
    status: () => engine.status,
    region: 'eu-west-1',
    version,
  };
}
