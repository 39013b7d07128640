import { SIGNATURES, type Signature } from './signatures.js';

/**
 * The CloudWatch Logs subscription filter pattern, derived from the signature catalogue: each signature
 * names the case-sensitive literal terms a line it matches contains (at least one); the pattern is the
 * OR of all of them, `?"term" ?"term" …`, in one filter (one of the log group's two subscription slots).
 *
 * CloudWatch Logs semantics (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html):
 * terms are case-sensitive; `?term` alternatives match an event that contains any of them; a quoted
 * term is matched as the exact phrase; a pattern is at most 1,024 characters.
 */
export const MAX_FILTER_PATTERN_LENGTH = 1024;

/** A term, the pattern or the catalogue cannot be expressed as a CloudWatch Logs filter pattern. */
export class FilterPatternError extends Error {
  override readonly name = 'FilterPatternError';
}

/** Printable ASCII without the double quote (it would end the quoted term; JSON envelopes escape it anyway). */
const TERM = /^[\x20-\x21\x23-\x7e]+$/;

/**
 * The catalogue's terms, minimal: duplicates removed, and a term dropped when a shorter term it
 * contains is kept (an event containing the longer one contains the shorter one, so the OR is unchanged).
 */
export function filterTerms(signatures: readonly Signature[] = SIGNATURES): string[] {
  const all = [...new Set(signatures.flatMap((s) => s.filter))];
  for (const t of all) {
    if (!TERM.test(t) || t.trim() !== t)
      throw new FilterPatternError(`filter term ${JSON.stringify(t)} is not a plain ASCII phrase`);
  }
  const byLength = all.sort((a, b) => a.length - b.length || a.localeCompare(b));
  const kept: string[] = [];
  for (const t of byLength) if (!kept.some((k) => t.includes(k))) kept.push(t);
  return kept.sort((a, b) => a.localeCompare(b));
}

/** `?"t1" ?"t2" …`; throws {@link FilterPatternError} beyond CloudWatch's 1,024 characters. */
export function buildFilterPattern(terms: readonly string[] = filterTerms()): string {
  if (terms.length === 0) throw new FilterPatternError('no filter terms');
  const pattern = terms.map((t) => `?"${t}"`).join(' ');
  if (pattern.length > MAX_FILTER_PATTERN_LENGTH) {
    throw new FilterPatternError(
      `filter pattern is ${pattern.length} characters; CloudWatch Logs accepts at most ${MAX_FILTER_PATTERN_LENGTH}`,
    );
  }
  return pattern;
}
