import { renderSummary, renderTable, runScenarios } from '../demo/run.js';
import { SCENARIOS } from '../demo/scenarios.js';

const HELP = `Usage: pod-doctor demo (--all | SCENARIO...) [--json]

Runs the seed failures through pod-doctor on this machine, without an AWS account: realistic node
log lines and CloudTrail events go through the real classifier and incident aggregation; the
pause-image scenarios run the real node scripts against a local containerd and registry.

Scenarios:
${SCENARIOS.map((s) => `  ${s.name.padEnd(30)} ${s.title}`).join('\n')}

--json  one JSON record per scenario instead of the summaries`;

export async function runDemoCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h') || args.length === 0) {
    process.stdout.write(`${HELP}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const names = args.filter((a) => !a.startsWith('--'));
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`pod-doctor demo: unknown scenario(s): ${unknown.join(', ')}\n`);
    return 2;
  }
  const chosen = args.includes('--all') ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  const t0 = performance.now();
  const results = await runScenarios(chosen);
  if (args.includes('--json')) {
    for (const r of results) {
      process.stdout.write(
        `${JSON.stringify({
          scenario: r.scenario,
          class: r.class,
          incidents: r.incidents.map((i) => ({
            class: i.class,
            scope: i.scope,
            scopeValue: i.scopeValue,
            count: i.count,
          })),
          findings: r.findings.map((f) => ({ id: f.id, status: f.status })),
          actions: r.actions.map((a) => ({ id: a.id, status: a.status })),
          outcome: r.outcome,
        })}\n`,
      );
    }
  } else {
    for (const r of results) process.stdout.write(`${renderSummary(r)}\n\n`);
    process.stdout.write(`${renderTable(results)}\n`);
    process.stdout.write(`\n${results.length} scenario(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s.\n`);
  }
  const wrong = results.filter((r) => r.class !== r.expectedClass || r.outcome === 'repair failed');
  return wrong.length === 0 ? 0 : 1;
}
