import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnchorAutomaton, AnchorAutomatonError, AnchorGroupAutomaton } from '../../lambdas/core/anchor-automaton.js';
import { ANCHOR_GROUPS, ANCHORS } from '../../lambdas/core/prefilter.js';
import { fuzz } from '../support/fuzz.js';

/** The specification: some anchor occurs in the text, ASCII case folded (what `/i` does without `u`). */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const naive = (anchors: readonly string[], text: string) => anchors.some((a) => asciiLower(text).includes(a));

describe('the anchor automaton (Aho–Corasick)', () => {
  it('finds overlapping and nested anchors, in any ASCII case, anywhere', () => {
    const a = new AnchorAutomaton(['he', 'she', 'hers', 'his', 'abcd', 'bcx']);
    for (const t of ['ushers', 'SHE', 'xhIs', 'abcx', 'zzabcbcxzz', 'ahe']) expect(a.test(t), t).toBe(true);
    for (const t of ['', 'h', 'abc', 'abcbc', 'hi s', 'bc']) expect(a.test(t), t).toBe(false);
    // An anchor inside a longer one's prefix: the text stops on the shorter, midway along the longer.
    const nested = new AnchorAutomaton(['xhez', 'he', 'ab', 'zab']);
    for (const t of ['xhe', 'axhe', 'XHEZ', 'zza', 'zab']) expect(nested.test(t), t).toBe(t !== 'zza');
  });

  it('folds ASCII case only: a non-ASCII letter never stands for an ASCII one', () => {
    const a = new AnchorAutomaton(['kubelet']);
    expect(a.test('KUBELET')).toBe(true);
    expect(a.test('\u212Aubelet')).toBe(false); // KELVIN SIGN lower-cases to "k", but /kubelet/i does not match it
    expect(/kubelet/i.test('\u212Aubelet')).toBe(false);
    expect(a.test('é kubelet')).toBe(true);
  });

  it('agrees with a naive search on random text over the anchors’ own characters (differential)', () => {
    const anchors = ANCHORS.slice(0, 60);
    const automaton = new AnchorAutomaton(anchors);
    const piece = fc.oneof(
      fc.constantFrom(...anchors),
      fc.constantFrom(...anchors).map((x) => x.toUpperCase().slice(0, Math.max(1, x.length - 1))),
      fc.string({ maxLength: 4 }),
      fc.constantFrom('é', '\u212A', ' ', ':'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const t = parts.join('');
        expect(automaton.test(t), t).toBe(naive(anchors, t));
      }),
      fuzz(5000),
    );
  });

  it('agrees with a naive search over the whole catalogue, anchors overlapping across pieces (differential)', () => {
    const automaton = new AnchorAutomaton(ANCHORS);
    const piece = fc.oneof(
      fc.constantFrom(...ANCHORS).map((x) => x.slice(0, Math.max(1, x.length - 1))),
      fc.constantFrom(...ANCHORS).map((x) => x.slice(1).toUpperCase()),
      fc.constantFrom(...ANCHORS),
      fc.string({ maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (parts) => {
        const t = parts.join('');
        expect(automaton.test(t), t).toBe(naive(ANCHORS, t));
      }),
      fuzz(3000),
    );
  });

  it('accepts every catalogue anchor and refuses anchors it cannot fold', () => {
    const automaton = new AnchorAutomaton(ANCHORS);
    for (const a of ANCHORS) expect(automaton.test(`x ${a.toUpperCase()} y`), a).toBe(true);
    expect(() => new AnchorAutomaton([])).toThrow(AnchorAutomatonError);
    expect(() => new AnchorAutomaton(['Upper'])).toThrow(AnchorAutomatonError);
    expect(() => new AnchorAutomaton(['naïve'])).toThrow(AnchorAutomatonError);
  });
});

/** The groups' specification: group g is reported when one of its anchors occurs, ASCII case folded. */
const naiveGroups = (groups: readonly (readonly string[])[], text: string) =>
  groups.flatMap((g, i) => (naive(g, text) ? [i] : []));
const reported = (automaton: AnchorGroupAutomaton, count: number, text: string) => {
  const bits = automaton.groupsIn(text);
  return Array.from({ length: count }, (_, i) => i).filter(
    (i) => bits !== undefined && (bits[i >>> 5] & (1 << (i & 31))) !== 0,
  );
};

describe('the anchor group automaton (which groups have an anchor in the text)', () => {
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

  it('agrees with a naive search over the catalogue’s groups (differential)', () => {
    const groups = ANCHOR_GROUPS;
    const all = groups.flat();
    const automaton = new AnchorGroupAutomaton(groups);
    const piece = fc.oneof(
      fc.constantFrom(...all),
      fc.constantFrom(...all).map((x) => x.toUpperCase().slice(0, Math.max(1, x.length - 1))),
      fc.constantFrom(...all).map((x) => x.slice(1)),
      fc.string({ maxLength: 3 }),
      fc.constantFrom('é', '\u212A', ' ', ':'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (parts) => {
        const t = parts.join('');
        expect(reported(automaton, groups.length, t), t).toEqual(naiveGroups(groups, t));
      }),
      fuzz(3000),
    );
  });
});
