import { type FailureClass, PULL_CAUSE_CLASSES } from '../contract/failure-classes.js';
import { type Classification, classifiedPart, classify, classifyMessage, quickUnknown } from './classifier.js';
import { extractEntities } from './entities.js';
import { patternHits, signaturesHeldBy } from './prefilter.js';
import { parseRecord, type RecordFormat } from './records.js';
import { CATALOGUE_VERSION } from './signatures.js';

/**
 * Classification with context: a log line read with its neighbours in the same log stream. The single-line
 * classifier stays the fast path (every line is read alone first, healthy lines by the raw-line pre-filter); only a
 * line that names no cause on its own (`unknown`, `image-pull-failed`) is read again, joined with a neighbour:
 *  - a multi-line value: klog prints a structured value that spans lines as `key=<`, its lines indented, then ` >`;
 *    journald stores each line as its own entry, so each reaches CloudWatch Logs as its own event;
 *  - a warning and its cause on the next line (kubeadm's `[WARNING ImagePull] … exit status 1` after the runtime's
 *    error), a retry summary after the error it retried (the ECS agent's `inspect image has been retried 5 time(s): `
 *    after `dial tcp …: i/o timeout`);
 *  - an effect without a cause (`Back-off pulling image "x"`) beside the cause of the same image.
 * The join is read by the same catalogue, as one line; it counts only when it says more than either line alone (a
 * healthy line beside a failure does not become that failure). Neighbours are lines of the same batch: CloudWatch
 * Logs delivers a subscription batch per log stream, so the window costs no I/O, and it sees only the lines the
 * subscription filter let through.
 */

/** A record of one log stream, in stream order, with its event time. */
export interface StreamRecord {
  readonly record: string;
  /** Event time (ms since the epoch). */
  readonly at: number;
}

export interface ContextOptions {
  /**
   * Neighbours more than this far apart in time are unrelated.
   * @default 10_000 (10 s)
   */
  readonly windowMs?: number;
  /**
   * Records looked at on each side of a line.
   * @default 3
   */
  readonly neighbours?: number;
  /**
   * Lines a multi-line value may span.
   * @default 40
   */
  readonly valueLines?: number;
  /**
   * What a line is read as once the pre-filter has let it through, and what a join is read as: the ingest path passes
   * its one redaction pass (outbound.ts), so what is classified, joined and kept is on one line, secrets out.
   * @default the line as received
   */
  readonly prepare?: (text: string) => string;
}

/** How context changed a line's class. */
export interface ContextNote {
  readonly kind: 'joined-value' | 'neighbour' | 'same-image';
  /** Indices of the records the line was read with. */
  readonly with: readonly number[];
}

/** A record's reading: its classification (undefined when the pre-filter answered `unknown` unread) and context. */
export interface StreamReading {
  /** Undefined: the pre-filter answered `unknown` (or an unreadable record, see `quick`) without reading the line. */
  readonly classification?: Classification;
  /** The pre-filter's answer for a line it did not read (`error` set for an unreadable record). */
  readonly quick?: { readonly error?: string; readonly format?: RecordFormat };
  readonly context?: ContextNote;
}

/** Classes that name no cause: a line of these classes is read again with its neighbours. */
const CAUSELESS: ReadonlySet<FailureClass> = new Set(['unknown', 'image-pull-failed']);
/** What can make a pull fail: the pull causes, a full disk (the layers do not fit), the sandbox image's own pull. */
const PULL_FAILS_OF: ReadonlySet<FailureClass> = new Set([...PULL_CAUSE_CLASSES, 'disk-full', 'sandbox-image']);
/**
 * A failed pull whose line stops where its cause would start: a retry summary or wrapped error ending in `:`
 * (`inspect image has been retried 5 time(s): `), a command's exit status whose output holds the cause (kubeadm's
 * `… exit status 1`). Generic effects (`Back-off pulling image`, `Error: ErrImagePull`) are not open: their cause is
 * in the pod's other events, which the same-image rule and the pod's facts read, never in whatever line is next.
 */
const OPEN_EFFECT = /(?::|\bexit status \d+)$/;
/** A klog structured value that continues on the next lines (`err=<`). */
const VALUE_OPENS = /\b[\w.-]+=<$/;
/** The end of a multi-line value: a line that starts with `>`. */
const VALUE_CLOSES = /^\s*>/;
/** The joins are at most this long (two lines, or a multi-line value). */
const MAX_JOIN = 16 * 1024;

const asReceived = (text: string) => text;

/** The fast path alone: every record read on its own, as {@link classifyStream} reads it first. */
export function classifyEach(
  records: readonly StreamRecord[],
  prepare: (text: string) => string = asReceived,
): StreamReading[] {
  return records.map((r) => {
    const quick = quickUnknown(r.record);
    return quick ? { quick } : { classification: classify(prepare(r.record)) };
  });
}

/** Reads a stream's records, each alone (the fast path), then the causeless ones with their neighbours. */
export function classifyStream(records: readonly StreamRecord[], options: ContextOptions = {}): StreamReading[] {
  const prepare = options.prepare ?? asReceived;
  const readings = classifyEach(records, prepare);
  const view = new StreamView(records, readings, prepare);
  const out = [...readings];
  const valueLines = options.valueLines ?? 40;
  for (let i = 0; i < records.length; i++) {
    // A value opens with `=<`: a line without it is not read for this (most lines, healthy ones unparsed).
    if (!records[i].record.includes('=<') || !view.readable(i) || !VALUE_OPENS.test(view.message(i).trimEnd()))
      continue;
    const joined = joinValue(view, i, valueLines, options.windowMs ?? 10_000);
    if (joined) for (const k of [i, ...joined.with]) out[k] = joined.reading(k);
  }
  for (let i = 0; i < records.length; i++) {
    if (out[i].context || !view.causeless(i)) continue;
    const c = withNeighbours(view, i, options);
    if (c) out[i] = c;
  }
  return out;
}

/** Lazy per-record facts the context path needs: message, class, anchor hits, read at most once each. */
class StreamView {
  private readonly messages: (string | undefined)[] = [];
  private readonly hits: (Uint32Array | undefined | null)[] = [];

  constructor(
    readonly records: readonly StreamRecord[],
    readonly readings: readonly StreamReading[],
    readonly prepare: (text: string) => string,
  ) {}

  readable(i: number): boolean {
    return this.readings[i].quick?.error === undefined && this.readings[i].classification?.error === undefined;
  }

  class(i: number): FailureClass {
    return this.readings[i].classification?.class ?? 'unknown';
  }

  causeless(i: number): boolean {
    return this.readable(i) && CAUSELESS.has(this.class(i));
  }

  /** A failed pull without a cause whose line ends where the cause would follow (see {@link OPEN_EFFECT}). */
  openEffect(i: number): boolean {
    return this.class(i) === 'image-pull-failed' && OPEN_EFFECT.test(this.message(i).trimEnd());
  }

  /** The message the classifier reads (read now for a line the pre-filter answered unread). */
  message(i: number): string {
    let m = this.messages[i];
    if (m === undefined) {
      m = this.readings[i].classification?.message ?? parseRecord(this.prepare(this.records[i].record)).message;
      this.messages[i] = m;
    }
    return m;
  }

  /**
   * The catalogue patterns the message holds an anchor of (see {@link patternHits}); null for none. A line the
   * pre-filter answered unread is not parsed for this: its raw line holds every anchor its message holds (it has no
   * rewriting escape, prefilter.ts), so the raw line's hits are a superset, which only means more joins are read.
   */
  anchorHits(i: number): Uint32Array | null {
    let h = this.hits[i];
    if (h === undefined) {
      const c = this.readings[i].classification;
      h = patternHits(c ? classifiedPart(c.message) : this.records[i].record) ?? null;
      this.hits[i] = h;
    }
    return h;
  }

  near(i: number, j: number, windowMs: number): boolean {
    return Math.abs(this.records[i].at - this.records[j].at) <= windowMs;
  }
}

/** A klog multi-line value opened at line i: its lines joined, read once, the reading shared by all of them. */
function joinValue(
  view: StreamView,
  i: number,
  maxLines: number,
  windowMs: number,
): { with: number[]; reading: (k: number) => StreamReading } | undefined {
  const parts: number[] = [];
  for (let j = i + 1; j < view.records.length && parts.length < maxLines; j++) {
    if (!view.readable(j) || !view.near(i, j, windowMs)) break;
    // A value's lines are indented (the reader trims a bare line, so its record tells), its last starts with `>`.
    const m = view.message(j);
    const closes = VALUE_CLOSES.test(m);
    if (!closes && !/^\s/.test(m) && !/^\s/.test(view.records[j].record)) break;
    parts.push(j);
    if (closes) break;
  }
  if (parts.length === 0 || ![i, ...parts].some((k) => view.causeless(k))) return undefined;
  const text = [i, ...parts].map((k) => view.message(k).trim()).join(' ');
  const joined = readJoin(view, text, i);
  if (CAUSELESS.has(joined.class)) return undefined;
  return {
    with: parts,
    reading: (k) =>
      view.causeless(k)
        ? { classification: joined, context: { kind: 'joined-value', with: [i, ...parts].filter((x) => x !== k) } }
        : view.readings[k],
  };
}

/** The nearest neighbour whose join with line i names a cause neither line names alone, and that reading. */
function withNeighbours(view: StreamView, i: number, options: ContextOptions): StreamReading | undefined {
  const span = options.neighbours ?? 3;
  const windowMs = options.windowMs ?? 10_000;
  for (let d = 1; d <= span; d++) {
    for (const j of [i - d, i + d]) {
      if (j < 0 || j >= view.records.length || !view.readable(j) || !view.near(i, j, windowMs)) continue;
      const reading = pairReading(view, i, j);
      if (reading) return reading;
    }
  }
  return undefined;
}

function pairReading(view: StreamView, i: number, j: number): StreamReading | undefined {
  const mine = view.class(i);
  const theirs = view.class(j);
  const a = view.readings[i].classification?.entities.image;
  const b = view.readings[j].classification?.entities.image;
  // Lines about two different images explain nothing about each other.
  if (a !== undefined && b !== undefined && a !== b) return undefined;
  // An effect without a cause takes the cause of the same image.
  if (mine === 'image-pull-failed' && PULL_CAUSE_CLASSES.has(theirs) && a !== undefined) {
    const c = view.readings[j].classification;
    if (c) return { classification: { ...c, message: view.message(i) }, context: { kind: 'same-image', with: [j] } };
  }
  // One of the two is a pull that failed and stops where its cause would start: the other may complete it. Two
  // lines that each say nothing wrong are never joined into a failure, nor is a generic back-off.
  if (!view.openEffect(i) && !view.openEffect(j)) return undefined;
  // A join says more than its lines only where each brings anchors of the signature it matches, and where their
  // anchors together hold a whole signature (an anchor spans no ": " join, so the join holds exactly the union).
  const hi = view.anchorHits(i);
  const hj = view.anchorHits(j);
  if (hi === null || hj === null || signaturesHeldBy(orHits(hi, hj)) === undefined) return undefined;
  const [first, second] = i < j ? [i, j] : [j, i];
  const joined = readJoin(view, `${view.message(first)}: ${view.message(second)}`, i);
  // Only a cause of a failed pull completes it; a healthy line never becomes its neighbour's failure.
  if (!PULL_FAILS_OF.has(joined.class) || (mine === 'unknown' && joined.class === theirs)) return undefined;
  return { classification: joined, context: { kind: 'neighbour', with: [j] } };
}

function orHits(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w] | b[w];
  return out;
}

/** A joined text read as one line; the envelope facts (node, instance, format) are line i's own. */
function readJoin(view: StreamView, text: string, i: number): Classification {
  const joined = view.prepare(text.length > MAX_JOIN ? text.slice(0, MAX_JOIN) : text);
  const c = classifyMessage(joined);
  const own = view.readings[i].classification;
  const known = { ...(own?.entities.node ? { node: own.entities.node } : {}) };
  if (own?.entities.instanceId) Object.assign(known, { instanceId: own.entities.instanceId });
  return {
    class: c.class,
    cause: c.cause,
    signature: c.signature,
    entities: c.class === 'unknown' ? known : extractEntities(classifiedPart(joined), known),
    message: joined,
    format: own?.format ?? view.readings[i].quick?.format ?? 'raw',
    catalogueVersion: CATALOGUE_VERSION,
  };
}
