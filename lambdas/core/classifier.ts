import { type Entities, extractEntities } from './entities.js';
import type { FailureClass } from './failure-classes.js';
import { parseRecord, type RecordFormat } from './records.js';
import { CATALOGUE_VERSION, FAILURE_HINT, INFORMATIONAL, SIGNATURES } from './signatures.js';

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

/** Classifies a message that is already extracted from its envelope. */
export function classifyMessage(message: string): {
  class: FailureClass;
  cause: string | null;
  signature: string | null;
} {
  if (!FAILURE_HINT.test(message)) return { class: 'unknown', cause: null, signature: null };
  return matchSignatures(message);
}

/** The catalogue without the FAILURE_HINT fast path (the reference the fast path is tested against). */
export function matchSignatures(message: string): {
  class: FailureClass;
  cause: string | null;
  signature: string | null;
} {
  if (INFORMATIONAL.some((re) => re.test(message))) return { class: 'unknown', cause: null, signature: null };
  for (const s of SIGNATURES) {
    if (s.all.every((re) => re.test(message)) && !(s.none ?? []).some((re) => re.test(message))) {
      return { class: s.class, cause: s.cause, signature: s.id };
    }
  }
  return { class: 'unknown', cause: null, signature: null };
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
  const c = classifyMessage(parsed.message);
  const known: Entities = {};
  if (parsed.node) known.node = parsed.node;
  if (parsed.instanceId) known.instanceId = parsed.instanceId;
  return {
    class: c.class,
    cause: c.cause,
    signature: c.signature,
    entities: c.class === 'unknown' ? known : extractEntities(parsed.message, known),
    message: parsed.message,
    format: parsed.format,
    catalogueVersion: CATALOGUE_VERSION,
  };
}
