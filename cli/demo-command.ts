import { writeFileSync } from 'node:fs';
import { asExpected, headline, scenarioLine } from '../demo/progress.js';
import { renderHtml, renderTable } from '../demo/render.js';
import { runScenarios } from '../demo/run.js';
import { SCENARIOS, type Scenario } from '../demo/scenarios.js';
import { renderClusterEvents, renderNotices } from '../demo/voices.js';
import { closest, type ParsedArgs } from './args.js';

/** Which scenarios the arguments name, or a usage error (exit 2) naming the closest known scenario. */
function chooseScenarios(all: boolean, names: readonly string[]): readonly Scenario[] | string {
  const known = SCENARIOS.map((s) => s.name);
  for (const n of names) {
    if (known.includes(n)) continue;
    const meant = closest(n, known);
    return `unknown scenario "${n}"${meant ? ` (did you mean ${meant}?)` : ''}; pod-doctor demo --list shows them`;
  }
  return all ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
}

/** `pod-doctor demo` on parsed arguments (cli/commands.ts holds its help and options). */
export async function runDemoCommand({ values, positionals }: ParsedArgs): Promise<number> {
  if (values.list) {
    process.stdout.write(`${SCENARIOS.map((s) => `${s.name.padEnd(34)} ${s.title}`).join('\n')}\n`);
    return 0;
  }
  const chosen = chooseScenarios(values.all === true, positionals);
  if (typeof chosen === 'string') {
    process.stderr.write(`pod-doctor demo: ${chosen}\n`);
    return 2;
  }
  const htmlFile = values.html as string | undefined;
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
  if (values.json) {
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
    for (const r of values.verbose ? results : []) {
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
