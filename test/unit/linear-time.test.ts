import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLASSIFY_PREFIX, classify } from '../../lambdas/core/detect/classifier.js';
import { quotedValue } from '../../lambdas/core/detect/records.js';
import { INFORMATIONAL, SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { fuzz } from '../support/fuzz.js';

/** The regex source without escapes and character classes: what is left must hold no repetition. */
function repetitionOf(source: string): string | undefined {
  const bare = source.replace(/\\./g, 'e').replace(/\[[^\]]*\]/g, 'c');
  return /[*+{]|[^(]\?|^\?/.exec(bare.replace(/\(\?:/g, '('))?.[0];
}

const CATALOGUE: RegExp[] = [...INFORMATIONAL, ...SIGNATURES.flatMap((s) => [...s.all, ...(s.none ?? [])])];

describe('catalogue patterns are bounded by construction', () => {
  it.each(CATALOGUE.map((re) => [re.source.slice(0, 60), re] as const))(
    '%s… has no repetition and no stateful flag',
    (_, re) => {
      expect(repetitionOf(re.source)).toBeUndefined();
      expect(re.global || re.sticky).toBe(false);
    },
  );

  it('the repetition check catches what backtracks', () => {
    for (const bad of [/a.*b/, /(a+)+b/, /x?y/, /a{2,}/, /[^"]*"/]) expect(repetitionOf(bad.source)).toBeDefined();
    for (const ok of [/a|b/, /(?:a|b)c/, /\bx509: /, /[?*]/]) expect(repetitionOf(ok.source)).toBeUndefined();
  });
});

const KB256 = 256 * 1024;

/** Repeats `unit` to exactly n characters. */
function fill(unit: string, n = KB256): string {
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

/** Adversarial shapes: many partial matches of signatures, unterminated quotes, long dotted names. */
const fragments = [
  ...new Set(
    SIGNATURES.flatMap((s) => s.all)
      .flatMap((re) => re.source.split('|'))
      .map((f) => f.replace(/\\b|\\|\(\?:|[()]/g, ''))
      .filter((f) => f.length > 2)
      .map((f) => f.slice(0, Math.max(2, f.length - 1))), // a partial match: one character short
  ),
];
const adversarial = fc.oneof(
  fc.array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 6 }).map((p) => fill(`${p.join(' ')} `)),
  fc
    .constantFrom('msg="', 'error="', 'sandbox image "', 'image "', 'pod="', 'level=error msg="a')
    .map((q) => `time="x" level=error ${fill(`${q}x `)}`),
  fc
    .constantFrom('ip-10-0-1-2.', 'a.', 'registry.k8s.io.', 'ip-1-2-3-4.ec2.', '602401143452.dkr.ecr.')
    .map((d) => fill(d)),
  fc.constantFrom('{"log":"', '{"message":"', '{"msg":"').map((p) => `${p}${fill('failed to pull image \\"x')}"}`),
  fc
    .constantFrom('E1104 10:12:01.123456    3412 log.go:32] ', 'Nov  4 10:12:09 ip-10-0-12-34 kubelet[1]: ')
    .map((p) => p + fill('"RunPodSandbox failed" err="rpc error: code = Unknown desc = ')),
  fc.string({ minLength: 1, maxLength: 40 }).map((s) => fill(s)),
);

/** Best of three: a scheduling hiccup on a shared machine is not the classifier's cost. */
function bestMs(line: string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    classify(line);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

describe('linear time on adversarial 256 KB lines', () => {
  it('classifies every adversarial 256 KB line in under 20 ms', () => {
    let worst = 0;
    fc.assert(
      fc.property(adversarial, (line) => {
        const ms = bestMs(line);
        worst = Math.max(worst, ms);
        expect(ms, line.slice(0, 80)).toBeLessThan(20);
      }),
      fuzz(60),
    );
    console.log(`adversarial 256 KB lines: worst ${worst.toFixed(2)} ms`);
  }, 120_000);

  it('classifies a bounded prefix: the cause must appear in the first CLASSIFY_PREFIX characters', () => {
    expect(classify(`${'x'.repeat(CLASSIFY_PREFIX)} no space left on device`).class).toBe('unknown');
    expect(classify(`no space left on device ${'x'.repeat(KB256)}`).class).toBe('disk-full');
  });

  it('reads logfmt quoted values in one pass, escapes and unterminated quotes included', () => {
    expect(quotedValue('level=error msg="a \\"b\\" c" error="d"', 'msg')).toBe('a \\"b\\" c');
    expect(quotedValue('xmsg="no" msg="yes"', 'msg')).toBe('yes');
    expect(quotedValue('msg="unterminated', 'msg')).toBeUndefined();
  });
});
