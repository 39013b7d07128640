/**
 * Markdown that tenant text cannot break out of (CommonMark): code spans and fenced blocks whose
 * backtick runs are longer than any run inside, and inline text with markup characters escaped.
 */

function longestRun(s: string, ch: string): number {
  let max = 0;
  let run = 0;
  for (const c of s) {
    run = c === ch ? run + 1 : 0;
    if (run > max) max = run;
  }
  return max;
}

/** An inline code span holding `s` verbatim, whatever backticks it contains (line breaks become spaces). */
export function codeSpan(s: string): string {
  const text = s.replace(/[\r\n]+/g, ' ');
  const ticks = '`'.repeat(longestRun(text, '`') + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text.startsWith(' ') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** A fenced code block holding `lines` verbatim: the fence is longer than any backtick run inside. */
export function codeBlock(lines: readonly string[]): string[] {
  const fence = '`'.repeat(Math.max(3, ...lines.map((l) => longestRun(l, '`') + 1)));
  return [fence, ...lines.map((l) => l.replace(/\r/g, '')), fence];
}

/** Inline text with Markdown and HTML markup escaped, on one line. */
export function inlineText(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[\\`*_[\]<>|#!~]/g, (c) => `\\${c}`);
}
