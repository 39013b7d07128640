import { describe, expect, it } from 'vitest';
import { classify } from '../../lambdas/core/classifier.js';
import { FAILURE_CLASSES } from '../../lambdas/core/failure-classes.js';
import { corpus } from '../support/fixtures.js';

const lines = corpus();

describe('signature corpus', () => {
  it.each(lines.map((l) => [`${l.class} ← ${l.source}: ${l.line.slice(0, 70)}`, l] as const))('%s', (_, l) => {
    const c = classify(l.line);
    expect(c.error).toBeUndefined();
    expect(c.class).toBe(l.class);
  });

  it('has real examples of every failure class', () => {
    const covered = new Set(lines.map((l) => l.class));
    expect(FAILURE_CLASSES.filter((c) => !covered.has(c))).toEqual([]);
  });

  it('keeps precision: every healthy line stays unknown and no failure line is unknown', () => {
    const confusion = lines.filter((l) => classify(l.line).class !== l.class);
    expect(confusion.map((l) => `${l.class}→${classify(l.line).class}`)).toEqual([]);
    expect(lines.filter((l) => l.class === 'unknown').length).toBeGreaterThanOrEqual(15);
  });

  it('names the source of every fixture line', () => {
    for (const l of lines) expect(l.source.length).toBeGreaterThan(5);
  });
});
