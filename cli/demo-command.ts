import { writeFileSync } from 'node:fs';
import { asExpected, headline, scenarioLine } from '../demo/progress.js';
import { renderHtml, renderTable } from '../demo/render.js';
import { runScenarios } from '../demo/run.js';
import { SCENARIOS } from '../demo/scenarios.js';
import { renderClusterEvents, renderNotices } from '../demo/voices.js';

const HELP = `Usage: pod-doctor demo (--all | SCENARIO...) [--json] [--html FILE] [--verbose]

Runs field failures through pod-doctor on this machine, without an AWS account: realistic node log
lines and CloudTrail events go through the real ingest path (classifier, aggregation, dedupe); each
incident runs through the state machine CDK synthesizes, executed locally with the real handlers, the
account checks answering from a recorded account; the pause-image scenarios run the real SSM
documents on a local containerd with a registry that answers 401 like ECR (when containerd is not
available they run on a simulated node, and say so).

Scenarios:
${SCENARIOS.map((s) => `  ${s.name.padEnd(34)} ${s.title}`).join('\n')}

--json       one JSON record per scenario: {scenario, class, signals, findings, actions, approval, outcome,
             notices: the chat card and the pagers' bodies pod-doctor would send,
             clusterEvents: the Kubernetes events it wrote, read back from the local API server}
--html FILE  a self-contained HTML report with a timeline per incident
--verbose    also the full e-mail, chat card, pages and Kubernetes events of every scenario

A line per scenario on stderr as it finishes; then the table and a one-line headline. The demo stack
is synthesized once and cached (node_modules/.cache/pod-doctor) until the code that shapes it changes.`;

export async function runDemoCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h') || args.length === 0) {
    process.stdout.write(`${HELP}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const htmlAt = args.indexOf('--html');
  const htmlFile = htmlAt >= 0 ? args[htmlAt + 1] : undefined;
  if (htmlAt >= 0 && !htmlFile) {
    process.stderr.write('pod-doctor demo: --html needs a file name\n');
    return 2;
  }
  const names = args.filter((a, i) => !a.startsWith('--') && (htmlAt < 0 || i !== htmlAt + 1));
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    process.stderr.write(`pod-doctor demo: unknown scenario(s): ${unknown.join(', ')}\n`);
    return 2;
  }
  const chosen = args.includes('--all') ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  const t0 = performance.now();
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(`pod-doctor demo: ${chosen.length} scenario(s); preparing the demo stack…`);
  const results = await runScenarios(chosen, {
    onTemplate: (t) => say(stackLine(t)),
    onResult: (r, i) => say(scenarioLine(r, i, chosen.length)),
  });
  for (const r of results.filter((x) => !asExpected(x)))
    say(
      `pod-doctor demo: ${r.scenario}: expected ${r.expected.class} / ${r.expected.outcome}, got ${r.class} / ${r.outcome}`,
    );
  if (args.includes('--json')) {
    for (const r of results) {
      process.stdout.write(
        `${JSON.stringify({
          scenario: r.scenario,
          class: r.class,
          signals: r.signals,
          findings: r.findings.map((f) => ({ id: f.id, status: f.status })),
          actions: r.actions,
          ...(r.approval ? { approval: r.approval } : {}),
          outcome: r.outcome,
          node: r.node,
          incidents: r.incidents.map((i) => ({
            class: i.class,
            scope: i.scope,
            scopeValue: i.scopeValue,
            count: i.count,
          })),
          transitions: r.states.length,
          // What chat and the pagers would receive: the card and each pager's body.
          notices: r.notices.map((n) => ({ kind: n.notice.kind, chat: n.chat, paging: n.paging ?? null })),
          // The Kubernetes events pod-doctor wrote, read back from the scenario's local API server.
          clusterEvents: r.clusterEvents,
        })}\n`,
      );
    }
    say(headline(results));
  } else {
    for (const r of args.includes('--verbose') ? results : []) {
      process.stdout.write(
        `━━━ ${r.scenario} — ${r.title} (node: ${r.node}; ${r.incidents.reduce((n, i) => n + i.count, 0)} events → ${r.incidents.length} incident(s))\n`,
      );
      process.stdout.write(`Subject: ${r.summary.subject}\n\n${r.summary.message}\n\n`);
      if (r.notices.length) process.stdout.write(`${renderNotices(r.notices)}\n\n`);
      process.stdout.write(`${renderClusterEvents(r.clusterEvents)}\n\n`);
    }
    process.stdout.write(
      `${renderTable(results)}\n\n${results.length} scenario(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n${headline(results)}\n`,
    );
  }
  if (htmlFile) writeFileSync(htmlFile, renderHtml(results));
  return results.every(asExpected) ? 0 : 1;
}

/** Where the demo stack came from: the disk cache, or a synthesis now cached. */
function stackLine(t: { cached: boolean; ms: number }): string {
  const s = (t.ms / 1000).toFixed(1);
  return t.cached
    ? `demo stack: from the cache in ${s} s`
    : `demo stack: synthesized in ${s} s (cached for the next run until the code that shapes it changes)`;
}
