/**
 * Secrets out of text before it is stored, mailed or shown: one pass over any string. Each rule finds
 * a class of secret by its shape (a key that names a secret, a scheme that carries one, a prefix
 * that only credentials have) and replaces the secret, keeping what names it (`PASSWORD=[REDACTED]`,
 * `https://user:[REDACTED]@host`), so the line still reads and still classifies as it did.
 *
 * Every pattern is bounded (fixed literals, bounded repetitions, no nested quantifiers): a 256 KB
 * line is read in linear time. Shapes and their public sources: test/fixtures/secrets/secrets.jsonl.
 */

export const REDACTED = '[REDACTED]';

/** The most characters one secret value may span (longer runs are redacted in pieces). */
const MAX_VALUE = 8192;

/** Words that make the value after them a secret (`DB_PASSWORD=`, `"client_secret":`, `X-Amz-Signature=`). */
const SECRET_KEY =
  '(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|signature|awsaccesskeyid|session[_-]?key|auth)';

/** Any secret word at all: most lines have none, and skip the key-value rule. */
const SECRET_WORD = new RegExp(SECRET_KEY, 'i');

/** A key's suffix after its secret word (`_access_key`, `s`), bounded. */
const SUFFIX = '[A-Za-z0-9_.-]{0,24}';

/**
 * What precedes a secret value. One group per form: 1 `KEY=value` (env, query strings, logfmt, TOML),
 * 2 `"key": "value"` and `\"key\": \"value\"` (JSON, JSON inside a quoted field), 3 `--key value` and
 * `--key=value` (command lines). An unquoted `key: value` is not one: `Password: panic: …`, `token:
 * unexpected status`, `smbpasswd: no space left on device` are error texts.
 */
const KEY_VALUE = new RegExp(
  [
    `(${SECRET_KEY}${SUFFIX}\\\\{0,7}["']?[ \\t]{0,4}=[ \\t]{0,4}\\\\{0,7}["']?)`,
    `|(\\\\{0,7}["'][A-Za-z0-9_.-]{0,24}${SECRET_KEY}${SUFFIX}\\\\{0,7}["'][ \\t]{0,4}:[ \\t]{0,4}\\\\{0,7}["']?)`,
    `|(--(?:[A-Za-z0-9]{1,24}[-_]){0,3}${SECRET_KEY}(?:[A-Za-z0-9-]{0,24}[A-Za-z0-9])?(?:[ \\t]{1,4}|=)\\\\{0,7}["']?)`,
  ].join(''),
  'gi',
);

/** Value characters: up to whitespace, a quote, `&` (next query parameter), `<` `>` or a backslash. */
const VALUE = new RegExp(`[^\\s"'&<>\\\\]{1,${MAX_VALUE}}`, 'y');

/** What follows a key rather than a value. */
const KEY_AFTER = /\\{0,7}["']?[ \t]{0,4}[:=]/y;

/** Flags named like a secret that take none (`--password-stdin`, `--token-file /path`). */
const NOT_A_SECRET_FLAG = /(?:stdin|file|path|dir|env|prompt|from)[ \t=\\"']*$/i;

/** The secret word in a matched key, and what follows it (`PASSWORD`, `secret` + `_access_key`). */
const KEY_WORD = new RegExp(`${SECRET_KEY}([A-Za-z0-9_.-]*)`, 'i');

/**
 * Whether a matched key names a secret: its word starts a word (`author=`, `oauth=` do not count;
 * `DB_PASSWORD` does: `_` and `-` separate words), and `auth` stands alone or as `auth_…`/`auth-…`
 * (`authority=` does not).
 */
function namesSecret(text: string, at: number, key: string): boolean {
  const w = KEY_WORD.exec(key);
  if (!w) return false;
  const before = w.index > 0 ? key[w.index - 1] : (text[at - 1] ?? '');
  const suffix = w[1] ?? '';
  if (/^auth/i.test(w[0]) && !/^(?:pass|secret|token)/i.test(w[0]) && suffix !== '' && !/^[_-]/.test(suffix))
    return false;
  return !/[A-Za-z]/.test(before) || /^(?:pass|secret|token|signature|credential)/i.test(w[0]);
}

/** The value after a key, unless it is a flag (`--password --other`) or nothing. */
function valueEnd(text: string, at: number): number | undefined {
  VALUE.lastIndex = at;
  const m = VALUE.exec(text);
  return m && !m[0].startsWith('-') ? at + m[0].length : undefined;
}

/**
 * An ARN names a resource; it is not a secret (`arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly`
 * has the length and character mix of a generated key). The ARN's head before `at`, bounded: partition,
 * service, Region, account (12 digits, `aws` for AWS managed policies, or none), then resource text.
 */
const ARN_HEAD = /\barn:aws[a-z-]{0,16}:[a-z0-9-]{1,64}:[a-z0-9-]{0,32}:(?:\d{12}|aws)?:[^\s"'<>\\]{0,1024}$/;
const ARN_VALUE = /^arn:aws[a-z-]{0,16}:[a-z0-9-]{1,64}:[a-z0-9-]{0,32}:(?:\d{12}|aws)?:/;

/** Whether `text` at `at` is inside the resource part of an ARN. */
function insideArn(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 1200), at);
  return before.includes('arn:') && ARN_HEAD.test(before);
}

/** The key-value rule: keeps every key, replaces its value. */
function redactKeyValues(text: string): string {
  if (!SECRET_WORD.test(text)) return text;
  let out = '';
  let last = 0;
  KEY_VALUE.lastIndex = 0;
  for (let m = KEY_VALUE.exec(text); m; m = KEY_VALUE.exec(text)) {
    const key = m[0];
    const start = m.index + key.length;
    if (m[3] && NOT_A_SECRET_FLAG.test(key)) continue;
    if (!namesSecret(text, m.index, key)) continue;
    const end = valueEnd(text, start);
    if (end === undefined) continue;
    // `"SecretArn": "arn:aws:secretsmanager:…"` names the secret; it is not one.
    if (ARN_VALUE.test(text.slice(start, end))) continue;
    // A "value" that names a secret and is followed by `=` or `":` is the next key (`--pass "password":"x"`).
    KEY_AFTER.lastIndex = end;
    if (SECRET_WORD.test(text.slice(start, end)) && KEY_AFTER.test(text)) {
      KEY_VALUE.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(last, start) + REDACTED;
    last = end;
    KEY_VALUE.lastIndex = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** `-----BEGIN … PRIVATE KEY-----` to its END line (or to the end of the text when cut off). */
function redactPrivateKeys(text: string): string {
  const header = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;
  const footer = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/y;
  let out = '';
  let last = 0;
  for (let i = text.indexOf('-----BEGIN', 0); i !== -1; i = text.indexOf('-----BEGIN', i + 1)) {
    header.lastIndex = i;
    const h = header.exec(text);
    if (!h || i < last) continue;
    // The END line is kept (so a second pass finds the block closed); without one, the rest of the text goes.
    let end = text.length;
    for (let j = text.indexOf('-----END', i + h[0].length); j !== -1; j = text.indexOf('-----END', j + 1)) {
      footer.lastIndex = j;
      if (footer.exec(text)) {
        end = j;
        break;
      }
    }
    out += `${text.slice(last, i)}${h[0]}${REDACTED}`;
    last = end;
    i = Math.max(i, end - 1);
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Has the mix of character kinds a generated secret has (not a word, not a hex digest). */
function looksGenerated(s: string, min: number): boolean {
  if (s.length < min) return false;
  const upper = /[A-Z]/.test(s);
  const lower = /[a-z]/.test(s);
  const digit = /[0-9]/.test(s);
  return (upper && lower && digit) || (digit && /[+/=_.~-]/.test(s) && upper !== lower);
}

interface Rule {
  readonly name: string;
  readonly re: RegExp;
  /** The replacement of one match (default: the whole match becomes {@link REDACTED}). */
  readonly replace?: (m: string, ...groups: string[]) => string;
  /** A cheap test the text must pass for the rule to run at all (most lines carry no secret): a literal it contains, or a pattern. */
  readonly when?: string | RegExp;
}

/** Has upper case, lower case and digits: generated, not a word, a path or a hex digest. */
const mixed = (m: string) => /[A-Z]/.test(m) && /[a-z]/.test(m) && /[0-9]/.test(m);

/** Shapes found anywhere, key or no key. Order matters only where shapes overlap (URLs before blobs). */
const RULES: readonly Rule[] = [
  // scheme://user:password@host — keep the user and host.
  {
    name: 'url-password',
    re: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s/?#@:"'<>\\]{0,256}:)([^\s/@"'<>\\]{1,512})@/gi,
    replace: (_m, head) => `${head}${REDACTED}@`,
    when: '@',
  },
  // user:password@host without a scheme (proxy settings, mirror lists): the host must look like one.
  {
    name: 'userinfo-password',
    re: /(?<![A-Za-z0-9._~%!$&'()*+,;=:/-])([A-Za-z0-9._~%!$&'()*+,;=-]{1,256}:)([^\s/@"'<>\\:]{1,512})@(?=[A-Za-z0-9-]{1,63}\.)/g,
    replace: (_m, user) => `${user}${REDACTED}@`,
    when: '@',
  },
  // Authorization: Bearer x / Basic x / AWS4-HMAC-SHA256 Credential=… (the header value): after `:` only with
  // a scheme (`authorization: server message …` is an error text), after `=` or a quoted name any value.
  {
    name: 'authorization-header',
    re: /\b((?:proxy-)?authori[sz]ation|x-api-key|x-auth-token|x-registry-auth|x-amz-security-token|cookie|set-cookie)(?:(\\{0,7}["']?[ \t]{0,4}=[ \t]{0,4}\\{0,7}["']?|\\{0,7}["'][ \t]{0,4}:[ \t]{0,4}\[?\\{0,7}["']?)((?:bearer|basic|digest|token|negotiate|aws4-hmac-sha256)[ \t]{1,4})?|([ \t]{0,4}:[ \t]{0,4})((?:bearer|basic|digest|token|negotiate|aws4-hmac-sha256)[ \t]{1,4}))([^\s"'<>\\]{1,8192})/gi,
    replace: (_m, name, sep, scheme, colon, colonScheme) =>
      `${name}${sep ?? colon}${scheme ?? colonScheme ?? ''}${REDACTED}`,
    when: /authori|api-key|auth-token|registry-auth|security-token|cookie/i,
  },
  // Bearer <token> and Basic <base64> without a header name.
  {
    name: 'bearer',
    re: /\b(bearer|basic)([ \t]{1,4})([A-Za-z0-9\-._~+/]{8,8192}=*)/gi,
    replace: (m, scheme, space, token) => (looksGenerated(token, 8) ? `${scheme}${space}${REDACTED}` : m),
    when: /bearer|basic/i,
  },
  // AWS access key ids: long-term (AKIA), temporary (ASIA), and the other key-id prefixes.
  { name: 'aws-access-key-id', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  // JWTs and any base64 JSON (`eyJ` is `{"`): service account tokens, ECR login tokens, .dockerconfigjson.
  {
    name: 'jwt-or-base64-json',
    re: /\beyJ[A-Za-z0-9_\-+/=]{12,8192}(?:\.[A-Za-z0-9_\-+/=]{0,8192}){0,2}/g,
    when: 'eyJ',
  },
  // EKS bearer tokens: k8s-aws-v1.<base64url presigned STS URL>.
  { name: 'eks-token', re: /\bk8s-aws-v1\.[A-Za-z0-9_-]{16,8192}/g, when: 'k8s-aws-v1.' },
  // Tokens whose prefix says what they are (GitHub, GitLab, Docker Hub, Slack, Google, npm, Stripe, JFrog).
  {
    name: 'prefixed-token',
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255}|glpat-[A-Za-z0-9_-]{20,255}|dckr_pat_[A-Za-z0-9_-]{16,255}|xox[abprse]-[A-Za-z0-9-]{10,255}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,255}|AKCp[A-Za-z0-9]{60,80})/g,
  },
  // STS session tokens by their fixed prefixes (raw or URL-encoded), whatever key or none carries them.
  {
    name: 'sts-session-token',
    re: /\b(?:IQoJb3JpZ2lu|FwoGZXIvYXdz|FQoGZXIvYXdz|AQoDYXdz|AgoJb3JpZ2lu)[A-Za-z0-9/+=%]{8,8192}/g,
  },
  // An AWS secret access key standing alone: 40 characters of the base64 alphabet (a little more for the
  // documentation's own examples), mixed case and digits, delimited as a word is (not a piece of an ARN or
  // a generated name), and not a path (`/var/lib/…/GetImageBlob1234`). Any longer blob of that alphabet
  // (64+ characters, mixed case and digits: a session token, a key, an encoded credential) goes too.
  {
    name: 'aws-secret-access-key-or-blob',
    re: /(?<![A-Za-z0-9/+=._-])[A-Za-z0-9/+]{40,8192}={0,2}(?![A-Za-z0-9/+=._-])/g,
    // No groups: String.prototype.replace passes the offset and the whole text next.
    replace: (m: string, ...rest: unknown[]) =>
      mixed(m) &&
      (m.length >= 64 || !(m.startsWith('/') && m.indexOf('/', 1) > 0)) &&
      !insideArn(String(rest[1]), Number(rest[0]))
        ? REDACTED
        : m,
    when: /[A-Za-z0-9/+]{40}/,
  },
];

/** `-u user -p secret`, `login … -p secret` (docker, mysql): `-p` only where a user or a login precedes it. */
const SHORT_PASSWORD_FLAG =
  /((?:\blogin\b[^\n]{0,256}?[ \t]|\s(?:-u[ \t]?|--user(?:name)?[= \t])\S{1,256}[ \t]{1,4})-p[ \t]{0,4})([^\s-][^\s]{0,8191})/g;

function applies(rule: Rule, text: string): boolean {
  if (rule.when === undefined) return true;
  return typeof rule.when === 'string' ? text.includes(rule.when) : rule.when.test(text);
}

/**
 * `text` without the secrets it carries: each replaced by {@link REDACTED}, what names it kept.
 * Idempotent: redacting redacted text changes nothing.
 */
export function redact(text: string): string {
  if (text.length === 0) return text;
  let t = redactPrivateKeys(text);
  if (/-p/.test(t)) t = t.replace(SHORT_PASSWORD_FLAG, (_m, head) => `${head}${REDACTED}`);
  for (const rule of RULES) if (applies(rule, t)) t = t.replace(rule.re, rule.replace ?? (() => REDACTED));
  return redactKeyValues(t);
}
