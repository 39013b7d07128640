import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnchorAutomatonError, AnchorGroupAutomaton } from '../../lambdas/core/detect/anchor-automaton.js';
import { patternAnchors } from '../../lambdas/core/detect/prefilter.js';
import { fuzz } from '../support/fuzz.js';

/** The specification: some anchor occurs in the text, ASCII case folded (what `/i` does without `u`). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const naive = (anchors: readonly string[], text: string) => anchors.some((a) => asciiLower(text).includes(a));
/** The groups' specification: group g is reported when one of its anchors occurs. */
const naiveGroups = (groups: readonly (readonly string[])[], text: string) =>
  groups.flatMap((g, i) => (naive(g, text) ? [i] : []));
const reported = (automaton: AnchorGroupAutomaton, count: number, text: string) => {
  const bits = automaton.groupsIn(text);
  return Array.from({ length: count }, (_, i) => i).filter(
    (i) => bits !== undefined && (bits[i >>> 5] & (1 << (i & 31))) !== 0,
  );
};
/** One group: "does the text hold any of these anchors?" */
const anyOf = (anchors: readonly string[]) => {
  const a = new AnchorGroupAutomaton([anchors]);
  return (text: string) => a.groupsIn(text) !== undefined;
};
const PATTERN_ANCHORS = patternAnchors();
const ALL_ANCHORS = [...new Set(PATTERN_ANCHORS.flat())];

describe('the anchor automaton (Aho–Corasick over groups of anchors)', () => {
  it('finds overlapping and nested anchors, in any ASCII case, anywhere', () => {
    const test = anyOf(['he', 'she', 'hers', 'his', 'abcd', 'bcx']);
    for (const t of ['ushers', 'SHE', 'xhIs', 'abcx', 'zzabcbcxzz', 'ahe']) expect(test(t), t).toBe(true);
    for (const t of ['', 'h', 'abc', 'abcbc', 'hi s', 'bc']) expect(test(t), t).toBe(false);
    // An anchor inside a longer one's prefix: found midway along the longer.
    const nested = anyOf(['xhez', 'he', 'ab', 'zab']);
    for (const t of ['xhe', 'axhe', 'XHEZ', 'zza', 'zab']) expect(nested(t), t).toBe(t !== 'zza');
  });

  it('reports every group whose anchor occurs: nested, overlapping, shared by groups, in any ASCII case', () => {
    const groups = [['he', 'xyz'], ['she'], ['hers', 'he'], ['abcd'], ['bcx', 'zzz']];
    const a = new AnchorGroupAutomaton(groups);
    expect(a.groupsIn('nothing here?')).toEqual(new Uint32Array([0b00101]));
    expect(a.groupsIn('no match')).toBeUndefined();
    expect(a.groupsIn('')).toBeUndefined();
    expect(reported(a, 5, 'USHERS')).toEqual([0, 1, 2]);
    expect(reported(a, 5, 'abcx')).toEqual([4]);
    expect(reported(a, 5, 'abcd bcx xyz')).toEqual([0, 3, 4]);
    expect(reported(a, 5, '\u212Aabcd')).toEqual([3]);
  });

  it('holds more than 32 groups', () => {
    const groups = Array.from({ length: 70 }, (_, i) => [`g${String(i).padStart(2, '0')}x`]);
    const a = new AnchorGroupAutomaton(groups);
    expect(a.words).toBe(3);
    expect(reported(a, 70, 'G00X g33x g69X g31x')).toEqual([0, 31, 33, 69]);
  });

  it('folds ASCII case only: a non-ASCII letter never stands for an ASCII one', () => {
    const test = anyOf(['kubelet']);
    expect(test('KUBELET')).toBe(true);
    expect(test('\u212Aubelet')).toBe(false); // KELVIN SIGN lower-cases to "k", but /kubelet/i does not match it
    expect(/kubelet/i.test('\u212Aubelet')).toBe(false);
    expect(test('é kubelet')).toBe(true);
  });

  it('agrees with a naive search on random text over the anchors’ own characters (differential)', () => {
    const anchors = ALL_ANCHORS.slice(0, 60);
    const test = anyOf(anchors);
    const piece = fc.oneof(
      fc.constantFrom(...anchors),
      fc.constantFrom(...anchors).map((x) => x.toUpperCase().slice(0, Math.max(1, x.length - 1))),
      fc.string({ maxLength: 4 }),
      fc.constantFrom('é', '\u212A', ' ', ':'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const t = parts.join('');
        expect(test(t), t).toBe(naive(anchors, t));
      }),
      fuzz(5000),
    );
  });

  it('agrees with a naive search over the catalogue’s pattern groups, anchors overlapping across pieces (differential)', () => {
    const automaton = new AnchorGroupAutomaton(PATTERN_ANCHORS);
    const piece = fc.oneof(
      fc.constantFrom(...ALL_ANCHORS),
      fc.constantFrom(...ALL_ANCHORS).map((x) => x.toUpperCase().slice(0, Math.max(1, x.length - 1))),
      fc.constantFrom(...ALL_ANCHORS).map((x) => x.slice(1)),
      fc.string({ maxLength: 3 }),
      fc.constantFrom('é', '\u212A', ' ', ':'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (parts) => {
        const t = parts.join('');
        expect(reported(automaton, PATTERN_ANCHORS.length, t), t).toEqual(naiveGroups(PATTERN_ANCHORS, t));
      }),
      fuzz(5000),
    );
  });

  it('accepts every catalogue anchor and refuses anchors it cannot fold', () => {
    const automaton = new AnchorGroupAutomaton(PATTERN_ANCHORS);
    for (const [g, anchors] of PATTERN_ANCHORS.entries())
      for (const a of anchors)
        expect(reported(automaton, PATTERN_ANCHORS.length, `x ${a.toUpperCase()} y`)).toContain(g);
    expect(() => new AnchorGroupAutomaton([])).toThrow(AnchorAutomatonError);
    expect(() => new AnchorGroupAutomaton([['Upper']])).toThrow(AnchorAutomatonError);
    expect(() => new AnchorGroupAutomaton([['naïve']])).toThrow(AnchorAutomatonError);
  });
});
