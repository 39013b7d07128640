import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify } from '../../lambdas/core/detect/classifier.js';
import { oneLine, outboundFields, outboundText } from '../../lambdas/core/text/outbound.js';
import { REDACTED, redact } from '../../lambdas/core/text/redact.js';
import { fieldCorpus } from '../support/corpus.js';
import { fuzz } from '../support/fuzz.js';
import { leakedIn, secretCorpus } from '../support/secrets.js';

const secrets = secretCorpus();
/** Every character that breaks a line or hides text: C0/C1 controls, DEL, U+2028/2029, format characters. */
const BREAKING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('redaction of every secret shape in the corpus', () => {
  it.each(secrets.map((s) => [s.kind, s] as const))('%s: no secret value survives', (_, s) => {
    const out = outboundText(s.line);
    expect(leakedIn(out, [s])).toEqual([]);
    expect(out).toContain(REDACTED);
  });

  it.each(secrets.map((s) => [s.kind, s] as const))('%s: the line keeps its class', (_, s) => {
    expect(classify(outboundText(s.line)).class).toBe(classify(s.line).class);
  });

  it('every corpus line is a failure line (so the through tests carry each secret to e-mail and storage)', () => {
    expect(secrets.filter((s) => classify(s.line).class === 'unknown').map((s) => s.kind)).toEqual([]);
  });

  it('secrets survive no envelope: Fluent Bit JSON, the dataplane record, a logfmt field', () => {
    const wrap = [
      (l: string) => JSON.stringify({ log: l, stream: 'stderr' }),
      (l: string) => JSON.stringify({ hostname: 'ip-10-0-1-2', systemd_unit: 'kubelet.service', message: l }),
      (l: string) => `time="2026-11-30T08:00:00Z" level=error msg=${JSON.stringify(l)}`,
    ];
    for (const w of wrap) expect(leakedIn(outboundText(w(secrets.map((s) => s.line).join(' '))), secrets)).toEqual([]);
  });
});

describe('redaction never changes a line of the field corpus to another class', () => {
  const field = fieldCorpus();
  it(`class before == class after for all ${field.length} field lines`, () => {
    const changed = field
      .map((l) => ({ l, before: classify(l.line).class, after: classify(outboundText(l.line)).class }))
      .filter((x) => x.before !== x.after)
      .map((x) => `${x.before} → ${x.after}: ${x.l.line.slice(0, 120)}`);
    expect(changed).toEqual([]);
  });
});

/** Keys programs print secrets under, in the spellings they use. */
const KEYS = [
  'password',
  'PASSWORD',
  'DB_PASSWORD',
  'MYSQL_ROOT_PASSWORD',
  'passwd',
  'pass',
  'secret',
  'client_secret',
  'AWS_SECRET_ACCESS_KEY',
  'aws_session_token',
  'token',
  'access_token',
  'api_key',
  'apiKey',
  'X-Amz-Signature',
  'X-Amz-Security-Token',
  'X-Amz-Credential',
  'private_key',
];
const value = fc.stringMatching(/^[A-Za-z0-9!#$%*+/^_~.]{10,40}$/).filter((v) => /[A-Za-z0-9]{4}/.test(v));
const forms = fc.constantFrom(
  (k: string, v: string) => `${k}=${v}`,
  (k: string, v: string) => `${k} = "${v}"`,
  (k: string, v: string) => `"${k}":"${v}"`,
  (k: string, v: string) => `"${k}": "${v}"`,
  (k: string, v: string) => `\\"${k}\\":\\"${v}\\"`,
  (k: string, v: string) => `--${k.toLowerCase().replace(/_/g, '-')} ${v}`,
  (k: string, v: string) => `--${k.toLowerCase().replace(/_/g, '-')}=${v}`,
  (k: string, v: string) => `https://example.com/x?a=1&${k}=${v}&b=2`,
);

describe('secrets under any key, in any form, inside any corpus line', () => {
  const lines = fieldCorpus().map((l) => l.line);
  it('the value never survives', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KEYS),
        value,
        forms,
        fc.constantFrom(...lines),
        fc.nat(),
        (key, v, form, line, at) => {
          const cut = at % (line.length + 1);
          const text = `${line.slice(0, cut)} ${form(key, v)} ${line.slice(cut)}`;
          expect(outboundText(text)).not.toContain(v);
        },
      ),
      fuzz(2000),
    );
  });

  it('passwords in URLs survive no scheme, user or host', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('https', 'http', 'oci', 'redis', 'postgres', 'mongodb+srv'),
        fc.stringMatching(/^[a-z][a-z0-9._-]{0,12}$/),
        value.filter((v) => !v.includes('/')),
        fc.stringMatching(/^[a-z][a-z0-9-]{0,10}\.[a-z]{2,6}$/),
        (scheme, user, password, host) => {
          expect(outboundText(`dial ${scheme}://${user}:${password}@${host}:5000/v2/ failed`)).not.toContain(password);
          expect(outboundText(`proxyconnect tcp: lookup ${user}:${password}@${host}: no such host`)).not.toContain(
            password,
          );
        },
      ),
      fuzz(500),
    );
  });
});

describe('redaction is stable and bounded', () => {
  it('is idempotent on any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(...secrets.map((s) => s.line))), (t) => {
        expect(redact(redact(t))).toBe(redact(t));
      }),
      fuzz(2000),
    );
  });

  it('reads adversarial 256 KB texts in linear time (each well under a second; quadratic work takes minutes)', () => {
    const fill = (unit: string) => unit.repeat(Math.ceil(262_144 / unit.length)).slice(0, 262_144);
    const units = [
      'a',
      'password=',
      '--password ',
      'https://a:',
      'a:b@',
      '-----BEGIN ',
      'eyJ',
      'Bearer ',
      'Authorization: ',
      'login -p ',
      ' -u x -p',
      '"password":',
      'user:pw@host.',
      `${'x'.repeat(39)}A1 `,
      'Ab1/',
      '\u200b\n',
    ];
    for (const u of units) {
      const t0 = performance.now();
      outboundText(fill(u));
      // Measured 1 to 50 ms each on a shared 2-core machine; 65,536² steps of quadratic work take minutes.
      expect(performance.now() - t0, JSON.stringify(u)).toBeLessThan(750);
    }
  });
});

describe('one line: no control character, line break or invisible character leaves', () => {
  it('any text, any code point', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (t) => {
        expect(BREAKING.test(oneLine(t))).toBe(false);
        expect(BREAKING.test(outboundText(t))).toBe(false);
      }),
      fuzz(3000),
    );
  });

  it('every line break Unicode knows becomes a space', () => {
    for (const br of ['\n', '\r', '\r\n', '\v', '\f', '\u0085', '\u2028', '\u2029', '\u001b[2K'])
      expect(oneLine(`a${br}Review and decide: https://evil.example`)).toMatch(/^a +(\[2K)?Review/);
  });

  it('a secret split by an invisible character is still redacted', () => {
    expect(outboundText('PASS\u200bWORD=hunter2-x9')).toBe(`PASSWORD=${REDACTED}`);
    expect(outboundText('token=\u2060hunter2-x9')).toBe(`token=${REDACTED}`);
  });

  it('cleans every string of a record, keys included, at any depth', () => {
    const out = outboundFields({ a: ['x\ny', { 'k\n': 'password=hunter2-x9' }], n: 1, b: true, z: null });
    expect(out).toEqual({ a: ['x y', { 'k ': `password=${REDACTED}` }], n: 1, b: true, z: null });
  });
});
