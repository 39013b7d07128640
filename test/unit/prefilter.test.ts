import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyLine, classifyToJson, LineBatcher } from '../../cli/classify-command.js';
import { classify, classifyMessage, matchSignatures, quickUnknown } from '../../lambdas/core/detect/classifier.js';
import {
  anchorOf,
  candidateSignatures,
  cannotMatch,
  PrefilterError,
  patternAnchors,
  signaturePatterns,
} from '../../lambdas/core/detect/prefilter.js';
import { INFORMATIONAL, SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { labelledCorpus } from '../support/corpus.js';
import { fuzz } from '../support/fuzz.js';

const corpus = labelledCorpus();

/** Fragments that nearly or fully match signatures, in any case. */
const signatureFragments = [
  ...new Set(
    [...SIGNATURES.flatMap((s) => [...s.all, ...(s.none ?? [])]), ...INFORMATIONAL]
      .flatMap((re) => re.source.split('|'))
      .map((f) => f.replace(/\\b|\\/g, ''))
      .filter((f) => f.length > 1),
  ),
];
/** Corpus words: their own pool, so a growing corpus does not dilute the signature fragments drawn. */
const corpusWords = corpus.flatMap((l) => l.line.split(/\s+/)).filter((_, i) => i % 7 === 0);
const fragments = [...signatureFragments, ...corpusWords];
/**
 * A fragment with one character written as an escape the reader decodes: JSON `\uXXXX` (`\\uXXXX`
 * decodes in a nested log), `\/`, and for a space the `\n` (`\\n` in JSON) the reader reads as one.
 * A pre-filter that let such a line through unread would hide the signature the escape spells.
 */
const escapedFragment = fc.tuple(fc.constantFrom(...fragments), fc.nat(), fc.nat(3)).map(([f, n, kind]) => {
  if (f.length === 0) return f;
  const i = n % f.length;
  const c = f[i];
  const unicode = `u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const escapes =
    c === ' '
      ? ['\\n', '\\\\n', `\\${unicode}`, `\\\\${unicode}`]
      : [`\\${unicode}`, `\\\\${unicode}`, c === '/' ? '\\/' : `\\${unicode}`, `\\${unicode}`];
  return f.slice(0, i) + escapes[kind] + f.slice(i + 1);
});
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...signatureFragments),
      fc.constantFrom(...corpusWords),
      escapedFragment,
      fc.constantFrom(...fragments).map((f) => f.toUpperCase()),
      fc.constantFrom(': ', '\\"', '"', '\\n', '\\u0066', '\\\\', '\\/', ' ', '='),
      fc.string({ maxLength: 6 }),
    ),
    { minLength: 1, maxLength: 10 },
  )
  .map((p) => p.join(''));
/** The shapes records take: bare text, journal lines, logfmt with msg/error, JSON envelopes, describe rows. */
const line = fc.oneof(
  text,
  text.map((t) => `Nov 30 10:00:00 ip-10-0-1-2 pull-sandbox-image.sh[12]: ${t}`),
  fc.tuple(text, text).map(([m, e]) => `time="2026-11-30T10:00:00Z" level=error msg="${m}" error="${e}"`),
  fc.tuple(text, text).map(([m, e]) => `level=info msg=${m} err="${e}`),
  text.map((t) => `E1130 10:00:00.000001    3412 log.go:32] "RunPodSandbox failed" err="${t}"`),
  text.map((t) => `  Warning  Failed  3s (x2 over 9s)  kubelet  ${t}`),
  text.map((t) => JSON.stringify({ hostname: 'ip-10-0-1-2', systemd_unit: 'kubelet.service', message: t })),
  text.map((t) => `{"level":"error","ts":"x","caller":"c","msg":"${t}"}`),
  text.map((t) => `{"log":"${t}","kubernetes":{"host":"ip-10-0-1-2","container_name":"aws-node"}}`),
);

describe('the raw-line pre-filter (CLI fast path)', () => {
  it('is equivalent to the full reader and catalogue: skipped lines are exactly unknown (differential fuzzing)', () => {
    fc.assert(
      fc.property(line, (l) => {
        if (cannotMatch(l)) expect(classify(l).class, l).toBe('unknown');
        // What the CLI and the ingest function answer unread is exactly what the reader would say.
        const quick = quickUnknown(l);
        if (quick) {
          const c = classify(l);
          expect([c.class, c.error, c.error && c.format], l).toEqual([
            'unknown',
            quick.error,
            quick.error && quick.format,
          ]);
        }
        expect(classifyToJson(l)).toBe(JSON.stringify(classifyLine(l)));
      }),
      fuzz(20_000),
    );
  });

  it('answers unread records as the reader would: empty, malformed, nested Container Insights logs', () => {
    const healthy = 'I1130 10:00:01.000004    3412 kubelet_pods.go:1075] "Clean up pod workers for terminated pods"';
    const ci = (log: string) =>
      JSON.stringify({ log, kubernetes: { host: 'ip-10-0-1-2', container_name: 'aws-node' } });
    const records = [
      '',
      '   ',
      healthy,
      '{"hostname": "x", broken',
      '[1, 2]',
      '{"a": 1}',
      '{"level":"info","ts":"x","msg":"Synced"}',
      ci(healthy),
      ci('{"level":"info","ts":"x","msg":"Synced"}'),
      ci('{"level": broken'),
      ci('{"no":"message"}'),
      ci(ci('{"broken')),
      JSON.stringify({ hostname: 'ip-10-0-1-2', message: '{"broken' }),
    ];
    const cut = corpus.flatMap((l, i) => [l.line.slice(0, (i * 37) % Math.max(1, l.line.length)), ci(l.line)]);
    for (const r of [...records, ...cut]) {
      const quick = quickUnknown(r);
      if (!quick) continue;
      const c = classify(r);
      expect([c.class, c.error, c.error && c.format], r).toEqual(['unknown', quick.error, quick.error && quick.format]);
    }
    expect(quickUnknown('{"hostname": "x", broken')).toMatchObject({ format: 'json', error: expect.any(String) });
    expect(quickUnknown(ci('{"level": broken'))).toMatchObject({ format: 'container-insights' });
    expect(quickUnknown(ci('{"level":"info","ts":"x","msg":"Synced"}'))).toEqual({});
  });

  it('skips no corpus line the catalogue classifies', () => {
    const wronglySkipped = corpus.filter((l) => cannotMatch(l.line) && classify(l.line).class !== 'unknown');
    expect(wronglySkipped.length).toBe(0);
  });

  it('skips everyday lines (it is a filter, not a pass-through)', () => {
    expect(
      cannotMatch('I1130 10:00:01.000004    3412 kubelet_pods.go:1075] "Clean up pod workers for terminated pods"'),
    ).toBe(true);
    expect(cannotMatch('no space left on device')).toBe(false);
    expect(cannotMatch('no space\\nleft on device')).toBe(false); // an escape the reader rewrites: full path
    // A Container Insights envelope of a logfmt line: its quoted quotes (\\\" in the JSON) join nothing.
    const envelope = (m: string) =>
      JSON.stringify({ hostname: 'ip-10-0-1-2', systemd_unit: 'containerd.service', message: m });
    expect(
      cannotMatch(envelope('time="x" level=info msg="ImageUpdate event name:\\"docker.io/library/nginx:1.27\\""')),
    ).toBe(true);
    expect(cannotMatch(envelope('time="x" level=error msg="write failed" error="no space\\nleft on device"'))).toBe(
      false,
    );
    expect(classify(envelope('time="x" level=error msg="write failed" error="no space\\nleft on device"')).class).toBe(
      'disk-full',
    );
    // The signature that names StartContainer also needs a timeout: a success holds none of its anchors.
    expect(cannotMatch('time="x" level=info msg="StartContainer for \\"4f8e\\" returns successfully"')).toBe(true);
    expect(
      cannotMatch('time="x" level=error msg="StartContainer for \\"4f8e\\" failed" error="context deadline exceeded"'),
    ).toBe(false);
  });

  it('anchors are literal pieces of each alternative, and a pattern that is not a flat alternation is refused', () => {
    expect(anchorOf('\\b401\\b')).toBe('401');
    expect(anchorOf('connect: connection refused')).toBe('connection refused');
    expect(anchorOf('foo\\sbarbaz')).toBe('barbaz');
    expect(() => anchorOf('a.b')).toThrow(PrefilterError);
    for (const a of patternAnchors().flat()) expect(a).toMatch(/^[\x20-\x7e]{3,}$/);
    expect(() => anchorOf('a\\sb')).toThrow(PrefilterError);
    // Every signature needs its first pattern's anchors, and those of its other flat patterns only.
    for (const [i, s] of SIGNATURES.entries()) {
      const needed = signaturePatterns()[i];
      expect(needed.length, s.id).toBeGreaterThanOrEqual(1);
      expect(needed.length, s.id).toBeLessThanOrEqual(s.all.length);
    }
    const lookup = SIGNATURES.findIndex((s) => s.id === 'registry.unreachable-lookup');
    expect(signaturePatterns()[lookup].length).toBeLessThan(SIGNATURES[lookup].all.length); // a pattern with groups
  });
});

describe('chunked reading, batched writing', () => {
  it('splits lines across chunk boundaries, multi-byte characters and CRLF included', () => {
    const input = Buffer.from('no space left on device\r\nnot a failure: ü\nI1130 tail without newline');
    const whole = new LineBatcher();
    const expected = whole.push(input) + whole.end();
    for (let cut = 1; cut < input.length; cut++) {
      const b = new LineBatcher();
      expect(b.push(input.subarray(0, cut)) + b.push(input.subarray(cut)) + b.end(), `cut at ${cut}`).toBe(expected);
    }
    const out = expected
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { class: string });
    expect(out.map((o) => o.class)).toEqual(['disk-full', 'unknown', 'unknown']);
  });
});

describe('output records', () => {
  it('are valid JSON whatever the line holds: quotes, backslashes, control characters, non-BMP text', () => {
    const nasty = 'q"uote back\\slash \u0001\u001f\u007f\t tab \u2028 \ud83d\ude80 rocket \ud800 lone';
    const lines = [
      `write /var/lib/containerd/${nasty}: no space left on device`,
      `Failed to pull image "registry.example.com/${nasty}": pull access denied`,
      `{"msg":"${nasty}`,
      JSON.stringify({ hostname: 'ip-10-0-1-2', message: `no space left on device ${nasty}` }),
      `{"level":"error","ts":"x","caller":"c","msg":"${nasty.replace(/"/g, "'")}\u0000"}`,
      nasty,
    ];
    const b = new LineBatcher();
    const out = (b.push(Buffer.from(lines.join('\n'))) + b.end()).split('\n');
    expect(out.pop()).toBe('');
    expect(out).toHaveLength(lines.length);
    for (const [i, o] of out.entries()) expect(JSON.parse(o), lines[i]).toEqual(classifyLine(lines[i]));
    expect(out.map((o) => (JSON.parse(o) as { class: string }).class)).toEqual([
      'disk-full',
      'registry-auth',
      'unknown',
      'disk-full',
      'unknown',
      'unknown',
    ]);
    expect((JSON.parse(out[2]) as { error?: string }).error).toMatch(/invalid JSON/);
  });
});

describe('the candidate signatures of a message (the classifier tries only these)', () => {
  /** The signatures whose every pattern matches the message (their `none` and `when` aside). */
  const matchesAll = (m: string) => SIGNATURES.flatMap((s, i) => (s.all.every((re) => re.test(m)) ? [i] : []));
  const isCandidate = (bits: Uint32Array | undefined, i: number) =>
    bits !== undefined && (bits[i >>> 5] & (1 << (i & 31))) !== 0;

  it('include every signature whose patterns all match (differential fuzzing over signature fragments)', () => {
    let matched = 0;
    fc.assert(
      fc.property(text, (m) => {
        if (matchesAll(m).length > 0) matched++;
        const bits = candidateSignatures(m);
        for (const i of matchesAll(m)) expect(isCandidate(bits, i), `${SIGNATURES[i].id}: ${m}`).toBe(true);
      }),
      fuzz(20_000),
    );
    expect(matched).toBeGreaterThan(2_000); // the property is exercised, not vacuous
  });

  it('give the catalogue’s answer: the classifier trying candidates only equals the ungated reference (differential)', () => {
    fc.assert(
      fc.property(text, (m) => {
        expect(classifyMessage(m), m).toEqual(matchSignatures(m));
      }),
      fuzz(20_000),
    );
    for (const l of corpus) expect(classifyMessage(l.line)).toEqual(matchSignatures(l.line));
  });

  it('include every signature whose patterns all match a corpus line, and exclude ones without an anchor', () => {
    for (const l of corpus) {
      const bits = candidateSignatures(l.line);
      for (const i of matchesAll(l.line)) expect(isCandidate(bits, i), SIGNATURES[i].id).toBe(true);
    }
    expect(candidateSignatures('Clean up pod workers for terminated pods')).toBeUndefined();
    const disk = SIGNATURES.findIndex((s) => s.id === 'disk.no-space');
    const bits = candidateSignatures('write /var/lib/x: NO SPACE LEFT ON DEVICE');
    expect(isCandidate(bits, disk)).toBe(true);
    expect(SIGNATURES.filter((_, i) => isCandidate(bits, i)).length).toBeLessThan(SIGNATURES.length / 2);
  });
});
