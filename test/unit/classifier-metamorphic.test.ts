import { describe, expect, it } from 'vitest';
import { classify } from '../../lambdas/core/detect/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';
import { labelledCorpus } from '../support/corpus.js';
import { carriedOf, ENVELOPES, goQuote, originOf, PASTES, truncateNote } from '../support/envelopes.js';
import { VARIATIONS } from '../support/variations.js';

/**
 * Metamorphic generalisation by format, over the TUNE split only (no held-out text is read): every
 * tune line the classifier gets right is reduced to its message and re-wrapped in each envelope its
 * origin really produces (test/support/envelopes.ts cites the formats); the class must not change —
 * failures keep their class, healthy lines stay unknown — and every re-wrapped failure must still pass
 * the subscription filter, which sees the raw envelope text with its escapes.
 */
const tune = labelledCorpus().filter((l) => l.split === 'tune' && originOf(l) !== undefined);
const right = tune.filter((l) => classify(l.line).class === l.class);
const pass = compileFilterPattern(buildFilterPattern());

function rewrapped() {
  return right.flatMap((l) => {
    const c = carriedOf(l.line);
    return [
      ...ENVELOPES.filter((e) => e.origin === originOf(l)).map((e) => ({ l, envelope: e.name, line: e.wrap(c, l) })),
      ...PASTES.filter((p) => p.applies(l)).map((p) => ({ l, envelope: p.name, line: p.paste(l.line) })),
    ];
  });
}

/**
 * Re-wrappings the classifier is known to get wrong, each kept (the field line is never dropped for the classifier's
 * sake): [source, envelope, what the classifier says, why].
 */
const KNOWN_ENVELOPE_GAPS: readonly (readonly [string, string, string, string])[] = [
  [
    'https://github.com/k3s-io/k3s/issues/2980',
    'Markdown lost backslashes',
    'runtime-failure',
    "the logfmt reader cuts error= at the first inner quote, before 'no space left on device'; reading the record as written " +
      'for a runtime-failure message was tried and turns a pull-sandbox-image.sh journal line into sandbox-image (program strings)',
  ],
];

describe('metamorphic envelopes (tune split)', () => {
  const cases = rewrapped();

  it('covers most tune lines in several envelopes each', () => {
    expect(right.length).toBeGreaterThanOrEqual(850);
    expect(cases.length).toBeGreaterThanOrEqual(5 * right.length);
    expect(new Set(cases.map((c) => c.envelope)).size).toBe(ENVELOPES.length + PASTES.length);
  });

  it('keeps every class under every envelope its origin produces, but the known gaps', () => {
    const wrong = cases.map((c) => ({ c, now: classify(c.line).class })).filter(({ c, now }) => now !== c.l.class);
    const isGap = (
      { c, now }: (typeof wrong)[number],
      [source, envelope, says]: (typeof KNOWN_ENVELOPE_GAPS)[number],
    ) => c.l.source === source && c.envelope === envelope && now === says;
    expect(
      wrong
        .filter((w) => !KNOWN_ENVELOPE_GAPS.some((gap) => isGap(w, gap)))
        .map(({ c, now }) => `${c.l.class} <- ${now} [${c.envelope}] ${c.line.slice(0, 200)}`),
    ).toEqual([]);
    // A known gap that no longer occurs is stale: take it off the list.
    expect(
      KNOWN_ENVELOPE_GAPS.filter((gap) => !wrong.some((w) => isGap(w, gap))).map(
        ([source, envelope]) => `${source} [${envelope}]`,
      ),
    ).toEqual([]);
  });

  it('lets every re-wrapped failure line through the subscription filter', () => {
    const stopped = cases
      .filter((c) => c.l.class !== 'unknown' && !pass(c.line))
      .map((c) => `[${c.envelope}] ${c.line.slice(0, 200)}`);
    expect(stopped).toEqual([]);
  });

  it('keeps every class, healthy lines included, when identifiers, capitals or gRPC codes vary', () => {
    const all = labelledCorpus().filter((l) => l.split === 'tune' && classify(l.line).class === l.class);
    const varied = all.flatMap((l) => VARIATIONS.map((v) => ({ l, name: v.name, line: v.vary(l.line) })));
    const changed = varied.filter((v) => v.line !== v.l.line);
    expect(changed.length).toBeGreaterThanOrEqual(1000);
    const broken = changed
      .filter((v) => classify(v.line).class !== v.l.class)
      .map((v) => `${v.l.class} <- ${classify(v.line).class} [${v.name}] ${v.line.slice(0, 200)}`);
    expect(broken).toEqual([]);
  });

  it('quotes as Go does and cuts event notes as the API limit does', () => {
    expect(goQuote('a "b"\n\x01')).toBe('"a \\"b\\"\\n\\x01"');
    expect(truncateNote('x'.repeat(1024))).toHaveLength(1024);
    expect(truncateNote('x'.repeat(2000))).toBe(`${'x'.repeat(1020)} ...`);
  });
});
