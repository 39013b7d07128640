import type { FailureClass } from '../contract/failure-classes.js';
import { type Entities, extractEntities } from './entities.js';
import { candidateSignatures, cannotMatch } from './prefilter.js';
import { type ParsedRecord, parseRecord, type RecordFormat, recordError } from './records.js';
import { CATALOGUE_VERSION, INFORMATIONAL, SIGNATURES, type Signature } from './signatures.js';

/**
 * At most this much of a message is classified (and searched for entities): the longest real failure
 * line in the corpus is under 1 KB; a bounded prefix keeps a 256 KB line as cheap as a short one.
 */
export const CLASSIFY_PREFIX = 8 * 1024;

const UNKNOWN = { class: 'unknown', cause: null, signature: null } as const;

/** The part of a message the classifier reads. */
export function classifiedPart(message: string): string {
  return message.length > CLASSIFY_PREFIX ? message.slice(0, CLASSIFY_PREFIX) : message;
}

export interface Classification {
  readonly class: FailureClass;
  /** Human cause, null for `unknown`. */
  readonly cause: string | null;
  /** Matching signature id, null for `unknown`. */
  readonly signature: string | null;
  readonly entities: Entities;
  /** The text that was classified (the envelope's message, quotes unescaped). */
  readonly message: string;
  readonly format: RecordFormat;
  /** Why the record could not be read (the record is then `unknown` and must be kept). */
  readonly error?: string;
  readonly catalogueVersion: string;
}

type Match = { class: FailureClass; cause: string | null; signature: string | null };

/** Classifies a message that is already extracted from its envelope. */
export function classifyMessage(message: string): Match {
  const part = classifiedPart(message);
  const candidates = candidateSignatures(part);
  if (candidates === undefined) return { ...UNKNOWN };
  return firstCandidate(part, candidates);
}

/** The catalogue without the anchor pre-filter (the reference the pre-filter is tested against). */
export function matchSignatures(message: string): Match {
  const part = classifiedPart(message);
  if (INFORMATIONAL.some((re) => re.test(part))) return { ...UNKNOWN };
  const s = MATCHERS.find((m) => matcherMatches(m, part))?.signature;
  return s ? { class: s.class, cause: s.cause, signature: s.id } : { ...UNKNOWN };
}

/**
 * Each signature in one object shape (absent `none` and `when` filled in), so the matching loop reads
 * one hidden class however the catalogue writes its entries: property reads there stay monomorphic.
 */
interface Matcher {
  readonly all: readonly RegExp[];
  readonly none: readonly RegExp[];
  readonly when: ((message: string) => boolean) | null;
  readonly signature: Signature;
}
const NO_PATTERNS: readonly RegExp[] = [];
const MATCHERS: readonly Matcher[] = SIGNATURES.map((s) => ({
  all: s.all,
  none: s.none ?? NO_PATTERNS,
  when: s.when ?? null,
  signature: s,
}));

/**
 * {@link matchSignatures} among `candidates` only (bit i for SIGNATURES[i]; a signature outside them
 * cannot match, see {@link candidateSignatures}). An informational line is unknown whatever matches
 * it, so INFORMATIONAL is tried only when a signature matches: most lines that reach here match none.
 */
function firstCandidate(part: string, candidates: Uint32Array): Match {
  for (let i = 0; i < MATCHERS.length; i++) {
    if ((candidates[i >>> 5] & (1 << (i & 31))) === 0 || !matcherMatches(MATCHERS[i], part)) continue;
    if (INFORMATIONAL.some((re) => re.test(part))) break;
    const s = MATCHERS[i].signature;
    return { class: s.class, cause: s.cause, signature: s.id };
  }
  return { ...UNKNOWN };
}

function matcherMatches({ all, none, when }: Matcher, part: string): boolean {
  for (let k = 0; k < all.length; k++) if (!all[k].test(part)) return false;
  for (let k = 0; k < none.length; k++) if (none[k].test(part)) return false;
  return when === null || when(part);
}

/**
 * The answer for a record no signature can match, found without reading the record: `{}` for
 * `unknown`, `{ error, format }` for a record the reader cannot read; undefined when the record
 * must be classified. Where defined, it equals what {@link classify} says (class `unknown`, same
 * error and format): the raw-line pre-filter is exact (prefilter.ts) and the error is the reader's.
 */
export function quickUnknown(record: string): { error?: string; format?: RecordFormat } | undefined {
  if (!cannotMatch(record)) return undefined;
  return recordError(record) ?? {};
}

/**
 * A plain-text logfmt line whose `msg`/`error` values the reader could not take whole says nothing in
 * its message: journald cuts a multi-line runc error after its first line (an unterminated
 * `error="…`), and pasted lines lose the backslashes of inner quotes. Such a line is read as written.
 * JSON envelopes are never read whole (their other fields are not the node's message).
 */
function logfmtFallback(
  record: string,
  parsed: ParsedRecord,
  c: ReturnType<typeof classifyMessage>,
): ReturnType<typeof classifyMessage> {
  if (c.class === 'image-pull-failed') return causeAsWritten(record, parsed, c);
  if (c.class !== 'unknown') return c;
  // A dataplane envelope's journal message is the same logfmt line, JSON-escaped once.
  if (parsed.journal?.format === 'containerd-logfmt') return classifyMessage(parsed.journal.text);
  if (parsed.format !== 'containerd-logfmt' || record.trimStart().startsWith('{')) return c;
  return classifyMessage(record);
}

/**
 * `image-pull-failed` says the message names no cause; when the reader cut the logfmt `error` value at an inner
 * quote that lost its backslash ("Failed to pull image" in msg, the cause after the cut), the record as written
 * may name it: that cause wins, else the message's answer stands.
 */
function causeAsWritten(
  record: string,
  parsed: ParsedRecord,
  c: ReturnType<typeof classifyMessage>,
): ReturnType<typeof classifyMessage> {
  if (parsed.format !== 'containerd-logfmt' || record.trimStart().startsWith('{')) return c;
  const whole = classifyMessage(record);
  return whole.class === 'unknown' ? c : whole;
}

/** Free text after a journal prefix, or in a dataplane envelope: the program's name is context. */
function withProgram(parsed: ParsedRecord): string {
  const free = parsed.format === 'raw' || parsed.journal?.format === 'raw';
  return free && parsed.source ? `${parsed.source}: ${parsed.message}` : parsed.message;
}

/**
 * Classifies one record in any supported input format (see records.ts). Total: never throws;
 * malformed records come back as `unknown` with `error` set.
 */
export function classify(record: string): Classification {
  const parsed = parseRecord(record);
  if (parsed.error) {
    return {
      class: 'unknown',
      cause: null,
      signature: null,
      entities: {},
      message: parsed.message,
      format: parsed.format,
      error: parsed.error,
      catalogueVersion: CATALOGUE_VERSION,
    };
  }
  // Free text after a journal prefix: the program's name (pull-sandbox-image.sh, aws-node) is context.
  const c = logfmtFallback(record, parsed, classifyMessage(withProgram(parsed)));
  const known: Entities = {};
  if (parsed.node) known.node = parsed.node;
  if (parsed.instanceId) known.instanceId = parsed.instanceId;
  return {
    class: c.class,
    cause: c.cause,
    signature: c.signature,
    entities: c.class === 'unknown' ? known : extractEntities(classifiedPart(parsed.message), known),
    message: parsed.message,
    format: parsed.format,
    catalogueVersion: CATALOGUE_VERSION,
  };
}
