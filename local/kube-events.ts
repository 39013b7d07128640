import type { ServerResponse } from 'node:http';
import { fieldMatches, page } from './kube-api-helpers.js';

/**
 * The cluster-wide core/v1 Event collection of the local API server, with the semantics an events
 * reader depends on (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
 *  - every write takes the next resourceVersion; a list answers at the current one, paged with
 *    `limit` and an opaque `continue` token;
 *  - a watch from resourceVersion R first replays every change after R, then streams new ones;
 *  - the server keeps a limited history (etcd compacts it, 5 minutes by default): a watch from a
 *    version older than that history answers 200 and then one `ERROR` event carrying a `410 Expired`
 *    Status ("too old resource version"), as kube-apiserver's watch cache does;
 *  - `allowWatchBookmarks=true` gets `BOOKMARK` events carrying only the latest resourceVersion;
 *  - field selectors `type=…`, `reason=…`, `involvedObject.kind=…` (equality terms, ANDed);
 *  - the server closes a watch after its `timeoutSeconds`.
 */
export interface StoredEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  readonly object: Record<string, unknown>;
}

interface OpenWatch {
  readonly res: ServerResponse;
  readonly selector: string | null;
  readonly bookmarks: boolean;
}

type Obj = Record<string, unknown>;

function expired(message: string): Obj {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Expired', code: 410 };
}

export class EventLog {
  private rv = 1000;
  /** Current objects by namespace/name. */
  private readonly objects = new Map<string, Obj>();
  /** Every change, oldest first (trimmed by {@link compact}). */
  private history: StoredEvent[] = [];
  /** The oldest resourceVersion a watch may still start from. */
  private oldest = 1000;
  private readonly watches = new Set<OpenWatch>();
  /** Bookmarks sent every this many ms to open watches that asked for them. */
  bookmarkEveryMs = 200;

  get resourceVersion(): number {
    return this.rv;
  }

  /** Creates or updates an event (ADDED the first time its namespace/name is seen, MODIFIED after). */
  write(object: Obj): Obj {
    const meta = (object.metadata ?? {}) as Obj;
    const key = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    this.rv += 1;
    const stored = {
      ...object,
      metadata: { uid: `uid-${key}`, ...meta, resourceVersion: String(this.rv) },
    };
    this.objects.set(key, stored);
    this.publish({ type, rv: this.rv, object: stored });
    return stored;
  }

  /** Forgets every event and its history (a fresh cluster); versions keep counting up. */
  reset(): void {
    this.objects.clear();
    this.compact();
  }

  /** Forgets history up to the current version (etcd compaction): older watches answer 410. */
  compact(): void {
    this.history = [];
    this.oldest = this.rv;
  }

  /** The current events of one namespace that match a field selector (`kubectl get events -n`). */
  inNamespace(namespace: string, selector: string | null): Obj[] {
    return [...this.objects.values()].filter(
      (o) => (o.metadata as Obj).namespace === namespace && fieldMatches(o, selector),
    );
  }

  /**
   * `GET /api/v1/events` without `watch`: one page at the current resourceVersion; a `continue`
   * token from before the last compaction answers 410 (the list must start again).
   */
  list(query: URLSearchParams): [number, Obj] {
    const items = [...this.objects.values()].filter((o) => fieldMatches(o, query.get('fieldSelector')));
    const limit = Number(query.get('limit') ?? 0) || items.length;
    const token = query.get('continue');
    const [atRv, startText] = token ? Buffer.from(token, 'base64url').toString().split(':') : [String(this.rv), '0'];
    if (token && Number(atRv) < this.oldest) return [410, expired(`continue token at ${atRv} is too old`)];
    const start = Number(startText);
    const next =
      start + limit < items.length ? Buffer.from(`${atRv}:${start + limit}`).toString('base64url') : undefined;
    return [
      200,
      {
        kind: 'EventList',
        apiVersion: 'v1',
        metadata: { resourceVersion: atRv, ...(next ? { continue: next } : {}) },
        items: items.slice(start, start + limit),
      },
    ];
  }

  /** `GET /api/v1/events?watch=true`: replay after `resourceVersion`, then stream until `timeoutSeconds`. */
  watch(query: URLSearchParams, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const from = Number(query.get('resourceVersion') ?? this.rv);
    const w: OpenWatch = {
      res,
      selector: query.get('fieldSelector'),
      bookmarks: query.get('allowWatchBookmarks') === 'true',
    };
    if (from < this.oldest) {
      const status = expired(`too old resource version: ${from} (${this.oldest})`);
      res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      return;
    }
    for (const e of this.history) if (e.rv > from) this.send(w, e);
    this.watches.add(w);
    const bookmark = w.bookmarks
      ? setInterval(() => this.line(w, { type: 'BOOKMARK', object: this.bookmarkObject() }), this.bookmarkEveryMs)
      : undefined;
    const timeout = setTimeout(() => res.end(), Number(query.get('timeoutSeconds') ?? 1) * 1000);
    res.on('close', () => {
      this.watches.delete(w);
      clearTimeout(timeout);
      if (bookmark) clearInterval(bookmark);
    });
  }

  /** Closes every open watch (the API server restarting, a load balancer dropping connections). */
  dropWatches(): void {
    for (const w of this.watches) w.res.destroy();
    this.watches.clear();
  }

  get openWatches(): number {
    return this.watches.size;
  }

  private bookmarkObject(): Obj {
    return { kind: 'Event', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) } };
  }

  private publish(e: StoredEvent): void {
    this.history.push(e);
    for (const w of this.watches) this.send(w, e);
  }

  private send(w: OpenWatch, e: StoredEvent): void {
    if (fieldMatches(e.object, w.selector)) this.line(w, { type: e.type, object: e.object });
  }

  private line(w: OpenWatch, event: Obj): void {
    if (!w.res.writableEnded) w.res.write(`${JSON.stringify(event)}\n`);
  }
}

/**
 * Event lists: cluster-wide from the event collection; of one namespace, the recorded events of a
 * pod (the field selector names it) and the collection's events there.
 */
export function eventList(
  log: EventLog,
  recorded: Readonly<Record<string, Record<string, unknown>[]>>,
  p: string,
  q: URLSearchParams,
): [number, unknown] | undefined {
  if (p === '/api/v1/events') return log.list(q);
  const ns = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(p)?.[1];
  if (!ns) return undefined;
  const name = /involvedObject\.name=([^,]+)/.exec(q.get('fieldSelector') ?? '')?.[1];
  const ofPod = recorded[`${ns}/${name}`] ?? [];
  return [200, page([...ofPod, ...log.inNamespace(ns, q.get('fieldSelector'))], q, 'EventList')];
}
