/**
 * CloudWatch Logs filter-pattern matching for unstructured log events, as AWS documents it
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html and
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/regex-expressions.html):
 *  - terms are case-sensitive and match where they occur in the event (`ERROR` matches `[ERROR 400]`);
 *  - a term with characters other than letters and digits must be double-quoted; a quoted term
 *    matches as the exact phrase;
 *  - `term1 term2` matches events containing both; `?term1 ?term2` matches events containing either;
 *    `-term` excludes events containing it;
 *  - `%regex%` is a regular expression of the documented subset only: letters, digits, the symbols
 *    `: _ # = @ / ; , -` and the operators `^ $ ? [ ] { } | \ * + .`; no parentheses, no multi-byte
 *    characters;
 *  - a pattern is at most 1,024 characters.
 * What the documentation leaves open (mixing `?` alternatives with required terms) is refused here
 * rather than guessed, so a pattern the tests accept is one whose meaning is documented.
 */
export class UnsupportedFilterPattern extends Error {
  override readonly name = 'UnsupportedFilterPattern';
}

interface Term {
  readonly kind: 'any' | 'all' | 'not';
  readonly text: string;
}

const REGEX_ALLOWED = /^[A-Za-z0-9:_#=@/;,\-^$?[\]{}|\\*+. ]*$/;

function tokenize(pattern: string): Term[] {
  const terms: Term[] = [];
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] === ' ') {
      i++;
      continue;
    }
    let kind: Term['kind'] = 'all';
    if (pattern[i] === '?' || pattern[i] === '-') {
      kind = pattern[i] === '?' ? 'any' : 'not';
      i++;
    }
    let text: string;
    if (pattern[i] === '"') {
      const end = pattern.indexOf('"', i + 1);
      if (end < 0) throw new UnsupportedFilterPattern(`unterminated quoted term at ${i}`);
      text = pattern.slice(i + 1, end);
      i = end + 1;
    } else {
      const end = pattern.indexOf(' ', i);
      text = pattern.slice(i, end < 0 ? pattern.length : end);
      i = end < 0 ? pattern.length : end;
      if (!/^[A-Za-z0-9_]+$/.test(text)) throw new UnsupportedFilterPattern(`term ${text} must be quoted`);
    }
    if (text.length === 0) throw new UnsupportedFilterPattern('empty term');
    terms.push({ kind, text });
  }
  return terms;
}

function regexMatcher(pattern: string): (event: string) => boolean {
  const body = pattern.slice(1, -1);
  if (!REGEX_ALLOWED.test(body)) throw new UnsupportedFilterPattern(`regex ${body} uses characters CloudWatch refuses`);
  const re = new RegExp(body);
  return (event) => re.test(event);
}

/** Compiles a pattern to a predicate over one log event's message. Throws on what AWS would refuse. */
export function compileFilterPattern(pattern: string): (event: string) => boolean {
  if (pattern.length > 1024) throw new UnsupportedFilterPattern(`pattern is ${pattern.length} characters (max 1024)`);
  if (pattern.trim() === '') return () => true;
  if (pattern.startsWith('%') && pattern.endsWith('%') && pattern.length > 2) return regexMatcher(pattern);
  const terms = tokenize(pattern);
  const any = terms.filter((t) => t.kind === 'any');
  const all = terms.filter((t) => t.kind === 'all');
  const not = terms.filter((t) => t.kind === 'not');
  if (any.length > 0 && all.length > 0) throw new UnsupportedFilterPattern('mixing ?alternatives with required terms');
  return (event) =>
    all.every((t) => event.includes(t.text)) &&
    (any.length === 0 || any.some((t) => event.includes(t.text))) &&
    !not.some((t) => event.includes(t.text));
}
