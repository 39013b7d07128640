import { AnchorAutomaton, AnchorGroupAutomaton } from './anchor-automaton.js';
import { SIGNATURES } from './signatures.js';

/**
 * The raw-line pre-filter: decides from the line as read, before any parsing, that no signature can
 * match it. Every signature's first pattern is a flat alternation of literals (a unit test holds it
 * to that); each alternative yields an ANCHOR: its longest literal piece without `:`, `"` or
 * backslash, trimmed of spaces, lower-cased. A message matching a signature contains that signature's anchor.
 *
 * Why the raw line is enough: the reader only takes substrings of the line (JSON strings, logfmt
 * values, journal and klog bodies), drops the backslash of `\"`, and joins two pieces with ": "
 * (logfmt msg and error, program name and message); other escapes send the line the full path. An anchor holds no ':' and neither
 * starts nor ends with a space, so it cannot take a character of a join: it lies inside one of those
 * substrings, hence inside the raw line. Lines with a backslash take
 * the full path. Matching folds ASCII case only, as the `/i` patterns do (anchor-automaton.ts).
 */
export class PrefilterError extends Error {
  override readonly name = 'PrefilterError';
}

/** The alternatives of a flat alternation (no groups, no classes), escapes resolved. */
function alternatives(re: RegExp): string[] {
  const src = re.source;
  if (/(?<!\\)[([]/.test(src)) throw new PrefilterError(`pattern ${src.slice(0, 60)} is not a flat alternation`);
  return src.split(/(?<!\\)\|/);
}

/** Escapes that stand for themselves; every other escape (`\b`, `\s`, `\d` …) is a boundary. */
const LITERAL_ESCAPES = new Set(['.', '/', '(', ')', '-', '_', "'", '"', '@', '=', '\\', ':', ' ']);

/** The literal pieces of one alternative: split at boundaries (`^`, `$`, `.`, class escapes), `:` and `"`. */
function literalPieces(alternative: string): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (let i = 0; i < alternative.length; i++) {
    let ch = alternative[i];
    let boundary = ch === '^' || ch === '$' || ch === '.';
    if (ch === '\\') {
      ch = alternative[++i] ?? '';
      boundary = !LITERAL_ESCAPES.has(ch);
    }
    if (boundary || ch === ':' || ch === '"' || ch === '\\') {
      pieces.push(piece);
      piece = '';
    } else piece += ch;
  }
  pieces.push(piece);
  return pieces.map((p) => p.trim());
}

/** The anchor of one alternative: its longest literal piece, lower-cased. */
export function anchorOf(alternative: string): string {
  const best = literalPieces(alternative)
    .reduce((a, b) => (b.length > a.length ? b : a), '')
    .toLowerCase();
  if (best.length < 3 || !/^[\x20-\x7e]+$/.test(best))
    throw new PrefilterError(`alternative ${JSON.stringify(alternative)} has no ASCII anchor of 3+ characters`);
  return best;
}

/** Each signature's anchors, in catalogue order: one per alternative of its first pattern. */
export const ANCHOR_GROUPS: readonly (readonly string[])[] = SIGNATURES.map((s) =>
  alternatives(s.all[0]).map(anchorOf),
);

/**
 * Anchors of every signature's first pattern, minimal: an anchor that contains a shorter one is
 * dropped (a line holding the longer holds the shorter, so the test is unchanged and the regex smaller).
 * Shortest first, ties in code-unit order (`localeCompare` would load ICU collation at each cold start);
 * an anchor is checked against the kept ones only (one holding a dropped anchor holds a kept one too).
 */
export const ANCHORS: readonly string[] = /* @__PURE__ */ minimalAnchors(ANCHOR_GROUPS);

function minimalAnchors(groups: readonly (readonly string[])[]): string[] {
  const sorted = [...new Set(groups.flat())].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const kept: string[] = [];
  for (const a of sorted) if (!kept.some((shorter) => a.includes(shorter))) kept.push(a);
  return kept;
}

/**
 * One pass over the text for all anchors at once (Aho–Corasick, ASCII case folded). Built at import
 * by the functions that read raw lines (ingest: {@link cannotMatch}); `@__PURE__` lets the bundler
 * leave it and {@link ANCHORS} out of a function that never calls cannotMatch (the Kubernetes
 * functions classify event messages only: {@link candidateSignatures}), ~10 ms of their cold start.
 */
const ANCHOR_AUTOMATON = /* @__PURE__ */ new AnchorAutomaton(ANCHORS);

/**
 * Each signature's anchors ({@link ANCHOR_GROUPS}, not only the minimal set): a message a signature
 * matches holds one of that signature's anchors, ignoring case (the alternative of its first pattern
 * that matched holds its anchor). Built at the first message that needs it (a few ms), so a cold
 * start whose lines all fail the raw-line test skips it.
 */
let signatureAnchors: AnchorGroupAutomaton | undefined;

/**
 * The signatures that may match a message (already read): bit i of word i >>> 5 for SIGNATURES[i],
 * set when the message holds one of its anchors; undefined when it holds none (no signature can match).
 */
export function candidateSignatures(message: string): Uint32Array | undefined {
  signatureAnchors ??= new AnchorGroupAutomaton(ANCHOR_GROUPS);
  return signatureAnchors.groupsIn(message);
}

/**
 * Escapes the reader may rewrite: any backslash except the `\"` of a quoted quote (JSON strings and
 * logfmt values). A quote is never part of an anchor, so removing the backslash before one cannot
 * join an anchor together; `\n`, `\t`, `\uXXXX`, `\/` and `\\` can, so such lines take the full path.
 */
function hasRewritingEscape(line: string): boolean {
  for (let i = line.indexOf('\\'); i >= 0; i = line.indexOf('\\', i + 2)) {
    if (line.charCodeAt(i + 1) !== 34) return true;
  }
  return false;
}

/** True when the line certainly matches no signature (the caller may answer `unknown` unparsed). */
export function cannotMatch(line: string): boolean {
  if (hasRewritingEscape(line)) return false;
  return !ANCHOR_AUTOMATON.test(line);
}
