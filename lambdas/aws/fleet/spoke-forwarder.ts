import { SPOKE_DETAIL_TYPE, SPOKE_SOURCE, type SpokeBatch } from '../../core/fleet/fleet.js';
import { aggregate, type IncidentCandidate } from '../../core/incident/incidents.js';
import type { Reject } from '../../core/incident/ingest.js';
import { type IngestConfig, readEvent } from '../../core/incident/ingest.js';

/** EventBridge takes entries of at most 256 KB (source, detail-type and detail): room left for the envelope. */
export const MAX_DETAIL_BYTES = 240_000;

/** Puts one event on the spoke account's bus; resolves once EventBridge accepted it. */
export interface SpokeBus {
  put(entry: { source: string; detailType: string; detail: string }): Promise<void>;
}

export interface SpokeDeps {
  readonly bus: SpokeBus;
  readonly config: IngestConfig;
  readonly now: () => number;
  /** Where the spoke runs (its function's account and Region): what every batch claims. */
  readonly account: string;
  readonly region: string;
}

export interface SpokeOutcome {
  readonly received: number;
  readonly candidates: number;
  readonly rejected: number;
  readonly batches: number;
}

/** Error for one candidate or reject larger than an event can carry (never the case for aggregate's bounded output). */
export class OversizedBatchError extends Error {
  override readonly name = 'OversizedBatchError';
}

const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x));

/**
 * A spoke's ingest: the same reading and folding as the hub's (readEvent, aggregate), then the
 * candidates and the unreadable records go to the hub in batches that each fit one event. Nothing is
 * kept here: the hub's intake opens the incidents and keeps the rejects in its evidence bucket.
 */
export async function forwardSignals(event: unknown, deps: SpokeDeps): Promise<SpokeOutcome> {
  const { occurrences, rejects, stats } = readEvent(event, deps.config, deps.now());
  const batches = toBatches(aggregate(occurrences), rejects, stats.received, deps);
  // One at a time: a failure retries the whole invocation, and the hub's open-or-join is idempotent.
  for (const b of batches)
    await deps.bus.put({ source: SPOKE_SOURCE, detailType: SPOKE_DETAIL_TYPE, detail: JSON.stringify(b) });
  return {
    received: stats.received,
    candidates: batches.reduce((n, b) => n + b.candidates.length, 0),
    rejected: rejects.length,
    batches: batches.length,
  };
}

/** Candidates and rejects in batches of at most MAX_DETAIL_BYTES and 100 items each; none when there is nothing. */
export function toBatches(
  candidates: readonly IncidentCandidate[],
  rejects: readonly Reject[],
  received: number,
  where: { account: string; region: string },
): SpokeBatch[] {
  const empty = (): SpokeBatch => ({
    account: where.account,
    region: where.region,
    candidates: [],
    rejects: [],
    received: 0,
  });
  const out: SpokeBatch[] = [];
  let current = empty();
  let size = bytes(current);
  const add = (
    field: 'candidates' | 'rejects',
    item: SpokeBatch['candidates'][number] | SpokeBatch['rejects'][number],
  ) => {
    const n = bytes(item) + 1;
    if (size + n > MAX_DETAIL_BYTES || current[field].length === 100) {
      if (n + bytes(empty()) > MAX_DETAIL_BYTES)
        throw new OversizedBatchError(`one ${field.slice(0, -1)} is ${n} bytes`);
      out.push(current);
      current = empty();
      size = bytes(current);
    }
    (current[field] as unknown[]).push(item);
    size += n;
  };
  for (const c of candidates) add('candidates', wire(c));
  for (const r of rejects) add('rejects', { reason: r.reason, record: r.record });
  if (current.candidates.length || current.rejects.length) out.push(current);
  // The first batch counts what the invocation received (the hub's signal health reads it).
  if (out[0]) out[0] = { ...out[0], received };
  return out;
}

/** A candidate as the wire schema holds it (entities as plain strings). */
function wire(c: IncidentCandidate): SpokeBatch['candidates'][number] {
  const entities = Object.fromEntries(
    Object.entries(c.entities).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return { ...c, entities, pods: [...c.pods], samples: [...c.samples], signals: [...c.signals] };
}
