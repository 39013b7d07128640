import { describe, expect, it } from 'vitest';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';
import { labelledCorpus } from '../support/corpus.js';
import { freshFieldSet } from '../support/fresh.js';

/**
 * The fresh field set (test/fixtures/fresh/README.md) is a judge: these checks hold its data to its rules. Nothing
 * here reads a classifier: its accuracy is reported by `npm run corpus:report -- --fresh`, never asserted or tuned on.
 */
describe('the fresh field set', () => {
  const fresh = freshFieldSet();

  it('draws only on public sources the corpus never mined', () => {
    expect(fresh.length).toBeGreaterThanOrEqual(150);
    const mined = new Set(labelledCorpus().map((l) => l.source));
    for (const l of fresh) {
      expect(l.source).toMatch(/^https:\/\//);
      expect(mined.has(l.source)).toBe(false);
    }
  });

  it('labels every line with a failure class and records context only from the same paste', () => {
    for (const l of fresh) {
      expect(FAILURE_CLASSES).toContain(l.class);
      const around = [...(l.context?.before ?? []), ...(l.context?.after ?? [])];
      for (const n of around) expect(fresh.some((o) => o.source === l.source && o.line === n)).toBe(true);
    }
  });

  it('has failure lines the subscription filter lets through (the ingest function would see them)', () => {
    const pass = compileFilterPattern(buildFilterPattern());
    const failures = fresh.filter((l) => l.class !== 'unknown');
    expect(failures.length).toBeGreaterThan(50);
    expect(failures.filter((l) => !pass(l.line)).map((l) => l.line)).toEqual([]);
  });
});
