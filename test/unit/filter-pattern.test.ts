import { describe, expect, it } from 'vitest';
import {
  buildFilterPattern,
  FilterPatternError,
  filterTerms,
  MAX_FILTER_PATTERN_LENGTH,
} from '../../lambdas/core/detect/filter-pattern.js';
import { SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { compileFilterPattern, UnsupportedFilterPattern } from '../support/cloudwatch-filter.js';
import { type LabelledLine, labelledCorpus } from '../support/corpus.js';

const pattern = buildFilterPattern();
const passes = compileFilterPattern(pattern);
const failures = labelledCorpus().filter((l) => l.class !== 'unknown');

/** A line for a failure message: held-out text is never printed, so nobody tunes on it. */
const shown = (l: LabelledLine, width: number): string =>
  l.split === 'held-out' ? `held-out line (text withheld) from a ${l.format} source` : l.line.slice(0, width);

/** How each line reaches CloudWatch Logs: as written, and inside Container Insights envelopes. */
function asShipped(line: string): string[] {
  return [
    line,
    JSON.stringify({ hostname: 'ip-10-0-1-2.ec2.internal', systemd_unit: 'kubelet.service', message: line }),
    JSON.stringify({
      log: line,
      stream: 'stdout',
      kubernetes: { host: 'ip-10-0-1-2.ec2.internal', container_name: 'aws-node' },
    }),
  ];
}

describe('the CloudWatch Logs matcher used by these tests (AWS-documented semantics)', () => {
  it('matches terms case-sensitively, quoted phrases exactly, ?alternatives as OR, plain terms as AND, -terms as NOT', () => {
    expect(compileFilterPattern('?"no space" ?"x509"')('write: no space left')).toBe(true);
    expect(compileFilterPattern('?"no space" ?"x509"')('write: No Space left')).toBe(false);
    expect(compileFilterPattern('ERROR timeout')('[ERROR] i/o timeout')).toBe(true);
    expect(compileFilterPattern('ERROR timeout')('[ERROR] refused')).toBe(false);
    expect(compileFilterPattern('ERROR -healthz')('ERROR /healthz')).toBe(false);
    expect(compileFilterPattern('%[Ee]rror|[Ff]ail%')('Failed to pull')).toBe(true);
  });

  it('refuses what CloudWatch refuses: over 1,024 characters, parentheses in a regex, unquoted symbols', () => {
    expect(() => compileFilterPattern(`?"${'x'.repeat(1030)}"`)).toThrow(UnsupportedFilterPattern);
    expect(() => compileFilterPattern('%(a|b)%')).toThrow(UnsupportedFilterPattern);
    expect(() => compileFilterPattern('?i/o')).toThrow(UnsupportedFilterPattern);
  });
});

describe('the subscription filter derived from the catalogue', () => {
  it('is one OR of quoted terms within 1,024 characters', () => {
    expect(pattern.length).toBeLessThanOrEqual(MAX_FILTER_PATTERN_LENGTH);
    expect(pattern).toMatch(/^\?"[^"]+"(?: \?"[^"]+")*$/);
  });

  it('keeps at least 10% of the 1,024 characters free for the signatures still to come', () => {
    // Over the line: shorten a term to a substring the catalogue's other terms share (a superset of the
    // lines it lets through: measure the healthy share with npm run bench), or drop one a kept term contains.
    expect(pattern.length, `${pattern.length} characters used`).toBeLessThanOrEqual(
      Math.floor(MAX_FILTER_PATTERN_LENGTH * 0.9),
    );
  });

  it('takes every signature’s terms into account (a dropped term is one a kept, shorter term contains)', () => {
    const kept = filterTerms();
    for (const s of SIGNATURES) {
      expect(s.filter.length, s.id).toBeGreaterThan(0);
      for (const t of s.filter)
        expect(
          kept.some((k) => t.includes(k)),
          `${s.id}: ${t}`,
        ).toBe(true);
    }
  });

  it('lets EVERY corpus failure line through, as written and inside Container Insights envelopes', () => {
    const blocked = failures.filter((l) => !asShipped(l.line).every(passes));
    expect(blocked.map((l) => `${l.class}: ${shown(l, 120)}`)).toEqual([]);
    expect(failures.length).toBeGreaterThan(500);
  });

  it('each line passes on a term of the signature that classifies it (terms belong to their signatures)', () => {
    // The filter is the union of per-signature terms: check the part each signature is responsible for.
    for (const s of SIGNATURES) {
      const own = compileFilterPattern(s.filter.map((t) => `?"${t}"`).join(' '));
      for (const l of failures.filter((x) => x.class === s.class)) {
        // Only lines this signature decides are its responsibility.
        const all = s.all.every((re) => re.test(l.line));
        if (all) expect(own(l.line), `${s.id}: ${shown(l, 100)}`).toBe(true);
      }
    }
  });

  it('refuses a catalogue whose pattern would exceed 1,024 characters or whose term CloudWatch cannot quote', () => {
    const long = Array.from({ length: 80 }, (_, i) => `term-number-${i}`);
    expect(() => buildFilterPattern(long)).toThrow(FilterPatternError);
    expect(() => filterTerms([{ ...SIGNATURES[0], filter: ['say "hi"'] }])).toThrow(FilterPatternError);
  });
});
