import { WARNING_SELECTOR } from '../../core/incident/kube-events.js';
import { statusOf } from '../readers/kubernetes/api-errors.js';
import { CoreV1Api } from '../readers/kubernetes/client.js';
import {
  type ClusterApi,
  KubernetesForbiddenError,
  KubernetesUnauthorizedError,
} from '../readers/kubernetes/cluster-api.js';

/**
 * Reads a cluster's Warning events incrementally within one bounded invocation, below EventBridge
 * Scheduler's one-minute minimum: a list (paged with `limit`/`continue`) only when there is no
 * resourceVersion to start from, then watches from the last one until the budget is spent, each
 * watch closed by the server after `timeoutSeconds` and opened again from where it ended. Events
 * reach the sink in small batches within `flushMs` of arriving; the resourceVersion moves on only
 * past batches the sink took (a failed batch is read again next time). Bookmarks keep the version
 * fresh when no Warning arrives (https://kubernetes.io/docs/reference/using-api/api-concepts/#watch-bookmarks);
 * a `410 Gone` (too old a version, as an HTTP status or an ERROR event in the stream) is answered by a
 * fresh list. 429 and 5xx answers are retried with back-off until the budget ends: nothing read is
 * lost, and the next invocation resumes from the saved version.
 */
export interface EventsReaderOptions {
  /** How long this invocation reads (the budget of every list and watch together). */
  readonly watchSeconds: number;
  /** Events wait at most this long to be handed over (a storm arrives as a few batches). @default 200 */
  readonly flushMs?: number;
  /** Largest batch handed over at once. @default 500 */
  readonly maxBatch?: number;
  /** First back-off after an API error, doubled up to 8 s. @default 500 */
  readonly backoffMs?: number;
  /** Items per list page. @default 500 */
  readonly pageSize?: number;
  readonly now: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Hands a batch of event objects (as the API sent them) to the ingest side; throws to stop reading. */
export type EventBatchSink = (objects: readonly unknown[]) => Promise<void>;

export type ReadCounts = {
  listed: number;
  watched: number;
  bookmarks: number;
  relists: number;
  expired: number;
  apiErrors: number;
};

export interface ReadResult {
  /** Where the next read starts (undefined: with a fresh list). */
  readonly resourceVersion?: string;
  /** Whether at least one list or watch of this invocation succeeded. */
  readonly readable: boolean;
  readonly error?: string;
  readonly counts: ReadCounts;
}

/** The sink failed: reading stops, the resourceVersion stays before the failed batch. */
export class EventSinkError extends Error {
  override readonly name = 'EventSinkError';
}

/** A watch shorter than this is not worth opening. */
const MIN_WATCH_MS = 1_000;
const MAX_BACKOFF_MS = 8_000;

interface Entry {
  readonly object?: unknown;
  readonly rv?: string;
}

/** Batches watch events for the sink; remembers the version up to which batches were taken. */
class Batcher {
  private entries: Entry[] = [];
  private timer?: ReturnType<typeof setTimeout>;
  private chain: Promise<void> = Promise.resolve();
  failure?: unknown;
  committed?: string;

  constructor(
    private readonly sink: EventBatchSink,
    private readonly flushMs: number,
    private readonly maxBatch: number,
  ) {}

  push(entry: Entry): void {
    this.entries.push(entry);
    if (this.entries.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.entries.splice(0);
    if (taken.length === 0) return this.chain;
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      const objects = taken.flatMap((e) => (e.object === undefined ? [] : [e.object]));
      try {
        if (objects.length) await this.sink(objects);
      } catch (e) {
        this.failure = e;
        return;
      }
      this.committed = taken.findLast((e) => e.rv)?.rv ?? this.committed;
    });
    return this.chain;
  }
}

function versionOf(o: unknown): string | undefined {
  const rv = (o as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

/** One line about a failed list or watch: its class, message and HTTP status. */
function describe(e: unknown): string {
  const code = statusOf(e);
  return `${(e as Error).name}: ${(e as Error).message}${code === undefined ? '' : ` (HTTP ${code})`}`.slice(0, 500);
}

/** An error the watch stream reported (an ERROR event's Status), with its HTTP code. */
function streamError(status: unknown): Error & { statusCode?: number } {
  const s = status as { code?: unknown; message?: unknown } | undefined;
  const e = new Error(`watch error: ${typeof s?.message === 'string' ? s.message.slice(0, 300) : 'unknown'}`);
  return Object.assign(e, typeof s?.code === 'number' ? { statusCode: s.code } : {});
}

export class EventsReader {
  private readonly o: Required<Omit<EventsReaderOptions, 'sleep'>> & Pick<EventsReaderOptions, 'sleep'>;
  private readonly counts: ReadCounts = { listed: 0, watched: 0, bookmarks: 0, relists: 0, expired: 0, apiErrors: 0 };
  private deadline = 0;

  constructor(
    private readonly api: ClusterApi,
    private readonly sink: EventBatchSink,
    options: EventsReaderOptions,
  ) {
    this.o = { flushMs: 200, maxBatch: 500, backoffMs: 500, pageSize: 500, ...options };
  }

  private remaining(): number {
    return this.deadline - this.o.now();
  }

  /** Reads from `from` (undefined: list first) until the budget is spent; never throws for API answers. */
  async read(from: string | undefined): Promise<ReadResult> {
    this.deadline = this.o.now() + this.o.watchSeconds * 1000;
    let rv = from;
    let readable = false;
    let error: string | undefined;
    for (let failures = 0; this.remaining() > MIN_WATCH_MS; ) {
      try {
        if (!rv) {
          if (readable || from) this.counts.relists += 1;
          rv = await this.list();
          if (!rv) throw new Error('the event list carried no resourceVersion to watch from');
          readable = true;
        }
        rv = await this.watch(rv);
        readable = true;
        failures = 0;
      } catch (e) {
        if (e instanceof EventSinkError)
          return { resourceVersion: rv, readable, error: e.message, counts: this.counts };
        if (statusOf(e) === 410) {
          this.counts.expired += 1;
          rv = undefined;
          continue;
        }
        error = describe(e);
        if (e instanceof KubernetesUnauthorizedError || e instanceof KubernetesForbiddenError) break;
        this.counts.apiErrors += 1;
        await this.backoff(failures++);
      }
    }
    return { resourceVersion: rv, readable, ...(error ? { error } : {}), counts: this.counts };
  }

  private async backoff(failures: number): Promise<void> {
    const ms = Math.min(this.o.backoffMs * 2 ** failures, MAX_BACKOFF_MS, Math.max(0, this.remaining()));
    await (this.o.sleep ?? ((t: number) => new Promise<void>((r) => setTimeout(r, t))))(ms);
  }

  /** Every Warning event now, handed over in batches; the list's resourceVersion. */
  private async list(): Promise<string | undefined> {
    const r = await this.api.listPaged('list events', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listEventForAllNamespaces({
        fieldSelector: WARNING_SELECTOR,
        limit: this.o.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    this.counts.listed += r.items.length;
    for (let i = 0; i < r.items.length; i += this.o.maxBatch) {
      try {
        await this.sink(r.items.slice(i, i + this.o.maxBatch));
      } catch (e) {
        throw new EventSinkError(`events of the list could not be ingested: ${(e as Error).message}`);
      }
    }
    return r.resourceVersion;
  }

  /** One watch from `rv` until the server closes it: the version reached, undefined after a 410. */
  private async watch(rv: string): Promise<string> {
    const batcher = new Batcher(this.sink, this.o.flushMs, this.o.maxBatch);
    batcher.committed = rv;
    const seconds = Math.max(1, Math.floor(this.remaining() / 1000));
    await this.api.call('watch events', (kc) => this.stream(kc.watch(), batcher, batcher.committed ?? rv, seconds));
    await batcher.flush();
    if (batcher.failure)
      throw new EventSinkError(`watched events could not be ingested: ${(batcher.failure as Error).message}`);
    return batcher.committed ?? rv;
  }

  private stream(
    w: ReturnType<import('../readers/kubernetes/client.js').ClusterConnection['watch']>,
    batcher: Batcher,
    from: string,
    seconds: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let failed: Error | undefined;
      let controller: AbortController | undefined;
      // A server that never closes the watch (a dead connection) is cut a little after its timeout.
      const guard = setTimeout(() => controller?.abort(), seconds * 1000 + 5_000);
      const done = (err: unknown) => {
        clearTimeout(guard);
        const e = failed ?? (err && (err as Error).name !== 'AbortError' ? err : undefined);
        if (e) reject(e);
        else resolve();
      };
      const query = {
        fieldSelector: WARNING_SELECTOR,
        resourceVersion: from,
        allowWatchBookmarks: true,
        timeoutSeconds: seconds,
      };
      w.watch(
        '/api/v1/events',
        query,
        (type: string, obj: unknown) => {
          if (type === 'ERROR') {
            failed = streamError(obj);
            controller?.abort();
          } else if (type === 'BOOKMARK') {
            this.counts.bookmarks += 1;
            batcher.push({ rv: versionOf(obj) });
          } else if (type === 'ADDED' || type === 'MODIFIED') {
            this.counts.watched += 1;
            batcher.push({ object: obj, rv: versionOf(obj) });
          }
          if (batcher.failure) controller?.abort();
        },
        done,
      ).then((c) => {
        controller = c;
      }, done);
    });
  }
}
