import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, classifyMessage, matchSignatures } from '../../lambdas/core/classifier.js';
import { FAILURE_CLASSES } from '../../lambdas/core/failure-classes.js';
import { parseRecord } from '../../lambdas/core/records.js';
import { FAILURE_HINT, SIGNATURES } from '../../lambdas/core/signatures.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { corpus } from '../support/fixtures.js';
import { fuzz } from '../support/fuzz.js';

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

describe('fast path', () => {
  it('every failure line in the corpus carries a FAILURE_HINT word (the skip is only ever a skip of non-matches)', () => {
    for (const l of lines.filter((x) => x.class !== 'unknown')) {
      expect(FAILURE_HINT.test(parseRecord(l.line).message), l.line.slice(0, 80)).toBe(true);
    }
  });

  it('the fast path never hides a match: random mixes of signature fragments classify alike with and without it', () => {
    // Fragments: the literal-looking alternatives of every signature pattern, plus corpus words.
    const fragments = [
      ...new Set(
        SIGNATURES.flatMap((sig) => [...sig.all, ...(sig.none ?? [])])
          .flatMap((re) => re.source.split('|'))
          .map((f) => f.replace(/\\[sdwb]|\\|\(\?:|[()?*+^$]|\[[^\]]*\]|\{\d+(,\d*)?\}/g, '').trim())
          .filter((f) => f.length > 1),
      ),
      ...lines.flatMap((l) => l.line.split(/\s+/)).slice(0, 400),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 8 }),
        fc.string({ maxLength: 20 }),
        (parts, noise) => {
          const message = `${parts.join(' ')} ${noise}`;
          expect(classifyMessage(message)).toEqual(matchSignatures(message));
        },
      ),
      fuzz(3000),
    );
  });

  it('everyday kubelet, containerd and ipamd lines stay unknown', () => {
    const noise = readFileSync(join(PROJECT_ROOT, 'test/fixtures/healthy-noise.txt'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(noise.length).toBeGreaterThanOrEqual(20);
    for (const n of noise) expect(classify(n).class, n).toBe('unknown');
  });
});
