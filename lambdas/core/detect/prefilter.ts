import { AnchorGroupAutomaton } from './anchor-automaton.js';
import { SIGNATURES } from './signatures.js';

/**
 * The raw-line pre-filter: decides from the line as read, before any parsing, that no signature can
 * match it. Every signature's first pattern is a flat alternation of literals (a unit test holds it
 * to that), and so are most of its other patterns; each alternative of such a pattern yields an
 * ANCHOR: its longest literal piece without `:`, `"` or backslash, trimmed of spaces, lower-cased. A
 * message matching a signature holds an anchor of each of those patterns of the signature's `all`
 * ({@link candidateSignatures}); the classifier then tries only the signatures that can match.
 *
 * Why the raw line is enough: the reader only takes substrings of the line (JSON strings, logfmt
 * values, journal and klog bodies), drops the backslash of `\"`, and joins two pieces with ": "
 * (logfmt msg and error, program name and message); other escapes send the line the full path. An
 * anchor holds no ':' and neither starts nor ends with a space, so it cannot take a character of a
 * join: it lies inside one of those substrings, hence inside the raw line. Matching folds ASCII case
 * only, as the `/i` patterns do (anchor-automaton.ts; a pattern with the `u` or `v` flag has no anchors).
 */
export class PrefilterError extends Error {
  override readonly name = 'PrefilterError';
}

/** The alternatives of a flat alternation (no groups, no classes, no repetition), escapes kept. */
function alternatives(re: RegExp): string[] {
  const src = re.source;
  if (/(?<!\\)[([?*+{]/.test(src)) throw new PrefilterError(`pattern ${src.slice(0, 60)} is not a flat alternation`);
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

/** A pattern's anchors, one per alternative; throws {@link PrefilterError} when it has none to give. */
function anchorsOf(re: RegExp): string[] {
  if (/[uv]/.test(re.flags)) throw new PrefilterError(`pattern ${re.source.slice(0, 60)} folds Unicode case`);
  return [...new Set(alternatives(re).map(anchorOf))];
}

/**
 * The anchors of the catalogue's patterns, one group per distinct pattern, and for each signature the
 * groups a message must all hold an anchor of for it to match: its first pattern's (which must have
 * anchors) and those of every other pattern of its `all` that is a flat alternation (a pattern that is
 * not constrains nothing here). A message matching a signature matches each pattern of its `all`,
 * so it holds an anchor of each such pattern, ignoring case.
 */
function anchorCatalogue(): { groups: string[][]; required: number[][] } {
  const groupOf = new Map<RegExp, number>();
  const groups: string[][] = [];
  const required = SIGNATURES.map((s) =>
    s.all.flatMap((re, k) => {
      let g = groupOf.get(re);
      if (g === undefined) {
        let anchors: string[];
        try {
          anchors = anchorsOf(re);
        } catch (e) {
          if (k === 0 || !(e instanceof PrefilterError)) throw e;
          return [];
        }
        g = groups.push(anchors) - 1;
        groupOf.set(re, g);
      }
      return [g];
    }),
  );
  return { groups, required };
}

/** The catalogue's anchors and their automaton: one pass over a text for every pattern's anchors at once. */
interface AnchorIndex {
  /** The anchors of each distinct pattern that has them (see {@link anchorCatalogue}). */
  readonly groups: readonly (readonly string[])[];
  /** For SIGNATURES[i], the indices into `groups` of the patterns a text must all hold an anchor of. */
  readonly required: readonly (readonly number[])[];
  readonly automaton: AnchorGroupAutomaton;
}

let index: AnchorIndex | undefined;

/**
 * Built at the first text that needs it (~10 ms cold, most of it the automaton's table), or by
 * {@link prepareAnchorIndex}: a function that imports the classifier but seldom reads a line (the
 * Kubernetes functions) pays nothing at import (issue 15); ingest, which reads lines at every
 * invocation, builds it during its init.
 */
function anchorIndex(): AnchorIndex {
  if (index === undefined) {
    const { groups, required } = anchorCatalogue();
    index = { groups, required, automaton: new AnchorGroupAutomaton(groups) };
  }
  return index;
}

/**
 * Builds the anchor index now. For a function that reads log lines on every invocation (ingest): the
 * work belongs to its init phase, where `npm run bench:init` measures it, not to its first event.
 */
export function prepareAnchorIndex(): void {
  anchorIndex();
}

/** The anchors of each distinct pattern of the catalogue that has them (see {@link anchorCatalogue}). */
export function patternAnchors(): readonly (readonly string[])[] {
  return anchorIndex().groups;
}

/** For SIGNATURES[i], the indices into {@link patternAnchors} of the patterns a text must all hold an anchor of. */
export function signaturePatterns(): readonly (readonly number[])[] {
  return anchorIndex().required;
}

const SIGNATURE_WORDS = Math.ceil(SIGNATURES.length / 32);

/**
 * The signatures that may match a text (a message already read, or a raw line: see above): bit i of
 * word i >>> 5 for SIGNATURES[i], set when the text holds an anchor of each of its patterns that has
 * anchors; undefined when no signature can match.
 */
export function candidateSignatures(text: string): Uint32Array | undefined {
  return signaturesHeldBy(patternHits(text));
}

/**
 * The catalogue's patterns a text holds an anchor of (bit g for {@link patternAnchors}()[g]); undefined when none.
 * Two texts joined with ": " hold the union of their hits and nothing more (an anchor holds no ':' and neither starts
 * nor ends with a space, so none spans the join): the context path ORs the hits of neighbouring lines to find the
 * signatures their join may match without reading the join.
 */
export function patternHits(text: string): Uint32Array | undefined {
  return anchorIndex().automaton.groupsIn(text);
}

/** The signatures whose every anchored pattern is among `hits` (see {@link candidateSignatures}). */
export function signaturesHeldBy(hits: Uint32Array | undefined): Uint32Array | undefined {
  if (hits === undefined) return undefined;
  const { required } = anchorIndex();
  let out: Uint32Array | undefined;
  for (let i = 0; i < required.length; i++) {
    const needed = required[i];
    let held = true;
    for (let k = 0; k < needed.length && held; k++) held = (hits[needed[k] >>> 5] & (1 << (needed[k] & 31))) !== 0;
    if (!held) continue;
    out ??= new Uint32Array(SIGNATURE_WORDS);
    out[i >>> 5] |= 1 << (i & 31);
  }
  return out;
}

/**
 * Escapes the reader may rewrite: a run of backslashes followed by anything but a quote. A run that
 * ends at a quote (`\"`, and `\\\"` where a JSON string holds a quoted quote, as in a Container
 * Insights envelope of a logfmt line) only ever decodes (JSON, twice for a nested log, then the
 * reader's quote unescaping) to backslashes and that quote, or ends a JSON string there: the quote
 * stays between the text on either side, and a quote is never part of an anchor, so no anchor can be
 * joined across it. `\n`, `\t`, `\uXXXX`, `\/` and `\\n` can join one, so such lines take the full path.
 */
function hasRewritingEscape(line: string): boolean {
  for (let i = line.indexOf('\\'); i >= 0; i = line.indexOf('\\', i)) {
    while (line.charCodeAt(i) === 92) i++;
    if (line.charCodeAt(i) !== 34) return true;
  }
  return false;
}

/** True when the line certainly matches no signature (the caller may answer `unknown` unparsed). */
export function cannotMatch(line: string): boolean {
  return !hasRewritingEscape(line) && candidateSignatures(line) === undefined;
}
