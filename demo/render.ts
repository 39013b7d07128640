import type { ScenarioResult } from './run.js';

/** Words of `text` in lines of at most `width` characters (a longer word stands alone). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** Column widths of the wrapped columns (cause, action, outcome): the table fits 160 columns. */
const WRAP = { cause: 38, action: 26, outcome: 38 };

/**
 * The demo's table: a row per scenario (class, signals, the cause in words, actions, outcome, time);
 * long cells wrap onto more lines rather than being cut.
 */
export function renderTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => [
    [r.scenario],
    [r.class],
    [r.signals.join(', ') || '—'],
    wrap(r.rootCause || '—', WRAP.cause),
    r.actions.length ? r.actions.flatMap((a) => wrap(`${a.id}: ${a.status}`, WRAP.action)) : ['—'],
    wrap(r.outcome, WRAP.outcome),
    [`${(r.ms / 1000).toFixed(1)} s`],
  ]);
  const head = ['scenario', 'class', 'signals', 'cause', 'action', 'outcome', 'time'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.flatMap((row) => row[c].map((l) => l.length))));
  const line = (cells: string[]) =>
    cells
      .map((x, c) => x.padEnd(widths[c]))
      .join('  ')
      .trimEnd();
  const body = rows.flatMap((row) => {
    const height = Math.max(...row.map((cell) => cell.length));
    return Array.from({ length: height }, (_, i) => line(row.map((cell) => cell[i] ?? '')));
  });
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...body].join('\n');
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
