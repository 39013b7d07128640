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

/** The incident page (`--html FILE`): demo/report-html.ts. */
export { renderHtml } from './report-html.js';
