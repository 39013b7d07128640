import type { ScenarioResult } from './run.js';

/** The demo's table: a row per scenario (class, signals, root cause, actions, outcome, time). */
export function renderTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => [
    r.scenario,
    r.class,
    r.signals.join(', ') || '—',
    r.rootCause.length > 48 ? `${r.rootCause.slice(0, 47)}…` : r.rootCause,
    r.actions.map((a) => `${a.id}: ${a.status}`).join(', ') || '—',
    r.outcome.length > 40 ? `${r.outcome.slice(0, 39)}…` : r.outcome,
    `${(r.ms / 1000).toFixed(1)} s`,
  ]);
  const head = ['scenario', 'class', 'signals', 'root cause found', 'action', 'outcome', 'time'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) => cells.map((x, c) => x.padEnd(widths[c])).join('  ');
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A self-contained HTML report: the table, then per incident its summary and workflow timeline. */
export function renderHtml(results: readonly ScenarioResult[]): string {
  const sections = results
    .map(
      (r) => `<section><h2>${esc(r.scenario)}</h2><p>${esc(r.title)} · node: ${r.node}</p>
<pre class="mail"><b>${esc(r.summary.subject)}</b>\n\n${esc(r.summary.message)}</pre>
<h3>Timeline (${r.states.length} state transitions)</h3><ol class="timeline">${r.states.map((st) => `<li>${esc(st)}</li>`).join('')}</ol></section>`,
    )
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>pod-doctor demo</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:1100px}pre{background:#f6f8fa;padding:1em;overflow:auto;white-space:pre-wrap}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}.timeline{columns:3;font-size:12px}
</style></head><body><h1>pod-doctor demo</h1><table><tr><th>scenario</th><th>class</th><th>signals</th><th>root cause found</th><th>action</th><th>outcome</th><th>time</th></tr>
${results.map((r) => `<tr><td>${esc(r.scenario)}</td><td>${esc(r.class)}</td><td>${esc(r.signals.join(', '))}</td><td>${esc(r.rootCause)}</td><td>${esc(r.actions.map((a) => `${a.id}: ${a.status}`).join(', ') || '—')}</td><td>${esc(r.outcome)}</td><td>${(r.ms / 1000).toFixed(1)} s</td></tr>`).join('\n')}
</table>${sections}</body></html>`;
}
