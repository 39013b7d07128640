import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

const read = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const readme = read('README.md');
const pages = readdirSync(join(PROJECT_ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

/** The relative link targets of a Markdown page (no URLs, no in-page anchors, no code), as project paths. */
function relativeLinks(page: string): string[] {
  const prose = read(page)
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].split('#')[0]);
  return targets
    .filter((t) => t !== '' && !/^[a-z]+:/i.test(t))
    .map((t) => relative(PROJECT_ROOT, normalize(join(PROJECT_ROOT, dirname(page), t))));
}

describe('the README and docs/', () => {
  it('the README is a five-minute read: under 200 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
  });

  it('the README links every page of docs/', () => {
    expect(pages.length).toBeGreaterThan(5);
    const linked = new Set(relativeLinks('README.md'));
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('every relative link of the README and of docs/ names a file of the project', () => {
    const broken = ['README.md', ...pages].flatMap((page) =>
      relativeLinks(page)
        .filter((target) => !existsSync(join(PROJECT_ROOT, target)))
        .map((target) => `${page} → ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
