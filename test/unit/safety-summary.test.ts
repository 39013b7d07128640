import { describe, expect, it } from 'vitest';
import { codeBlock, codeSpan, inlineText } from '../../lambdas/core/text/markdown.js';
import { snsSubject } from '../../lambdas/core/text/sns-subject.js';

/** Tenant text in summary.md stays inside its code, subjects stay one line. */
describe('summary Markdown and subjects', () => {
  it('a sample containing ``` cannot close the evidence fence', () => {
    const samples = ['ok line', 'evil ```\n# Injected heading\n[click](https://evil.example.com)', 'x ```` y'];
    const block = codeBlock(samples);
    const fence = block[0];
    expect(fence).toMatch(/^`{5,}$/);
    expect(block.at(-1)).toBe(fence);
    // No line inside starts a fence as long as the opening one (CommonMark closes only on >= length).
    for (const l of block.slice(1, -1).join('\n').split('\n')) expect(l.trimStart().startsWith(fence)).toBe(false);
  });

  it('a backtick in an image cannot break out of inline code', () => {
    const image = 'x.io/a`](https://evil.example.com)`:1';
    const span = codeSpan(image);
    const ticks = /^`+/.exec(span)?.[0] ?? '';
    expect(ticks.length).toBeGreaterThan(1);
    expect(span.endsWith(ticks)).toBe(true);
    expect(span.slice(ticks.length, -ticks.length)).not.toContain(ticks);
    expect(span.slice(ticks.length, -ticks.length).trim()).toBe(image);
  });

  it('inline text escapes links, emphasis, tables and HTML, and keeps one line', () => {
    expect(inlineText('a | [x](http://e) <img src=x> *b*\r\nc')).toBe(
      'a \\| \\[x\\](http://e) \\<img src=x\\> \\*b\\* c',
    );
  });

  it('an e-mail subject keeps no CR/LF (no header injection) and stays under 100 characters', () => {
    const s = snsSubject('[pod-doctor] sandbox-image on prod\r\nBcc: victim@example.com');
    expect(s).not.toMatch(/[\r\n]/);
    expect(s.length).toBeLessThan(100);
  });
});
