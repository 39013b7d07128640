import { CLASS_SCOPE } from '../../core/contract/failure-classes.js';
import { aggregate, type Occurrence } from '../../core/incident/incidents.js';
import type { Reject } from '../../core/incident/ingest.js';
import { instanceIdOfProviderId, readKubeEvent } from '../../core/incident/kube-events.js';
import { type OpenIncidentDeps, openIncidents } from '../ingest/open-incidents.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { EventsReader, type EventsReaderOptions, type ReadCounts } from './events-reader.js';
import type { EventsStateStore } from './events-state.js';

/** What the events function needs (its composition root builds the real ones). */
export interface EventsDeps extends OpenIncidentDeps {
  readonly clusters: readonly string[];
  readonly api: (cluster: string) => Promise<ClusterApi>;
  readonly state: EventsStateStore;
  /** Keeps events that cannot be read (the evidence bucket's `rejected/` in production). */
  readonly rejects: { keep(rejects: readonly Reject[], requestId: string, now: number): Promise<string | undefined> };
  readonly now: () => number;
  /** An event is counted at most once in this window (the incident window). */
  readonly windowMs: number;
  readonly trustedSandboxImages?: readonly string[];
  readonly reader: Omit<EventsReaderOptions, 'now'>;
}

/** What reading one cluster's events did, counted. */
export interface ClusterEventsOutcome {
  readonly cluster: string;
  /** Another invocation holds the cluster (its lease): nothing read here. */
  readonly skipped?: string;
  readonly readable: boolean;
  readonly error?: string;
  readonly counts: ReadCounts & IngestCounts;
  readonly incidentsOpened: string[];
  readonly incidentsJoined: string[];
  readonly workflowsStarted: string[];
  readonly rejectKeys: string[];
}

export type IngestCounts = {
  received: number;
  classified: number;
  ignored: number;
  rejected: number;
  truncated: number;
  /** Events already counted (a series' update, the same event in a re-list). */
  duplicates: number;
};

const NODE_SCOPED = new Set(['node', 'subnet']);
/** Lease beyond the read budget (the handler's timeout is the budget plus this margin). */
export const LEASE_MARGIN_MS = 30_000;

/** Every configured cluster at once, each on its own: one that cannot be read never stops another. */
export async function readAllClusters(deps: EventsDeps, requestId: string): Promise<ClusterEventsOutcome[]> {
  return Promise.all(deps.clusters.map((cluster) => readCluster(cluster, deps, requestId)));
}

function emptyOutcome(cluster: string): ClusterEventsOutcome {
  return {
    cluster,
    readable: false,
    counts: {
      listed: 0,
      watched: 0,
      bookmarks: 0,
      relists: 0,
      expired: 0,
      apiErrors: 0,
      received: 0,
      classified: 0,
      ignored: 0,
      rejected: 0,
      truncated: 0,
      duplicates: 0,
    },
    incidentsOpened: [],
    incidentsJoined: [],
    workflowsStarted: [],
    rejectKeys: [],
  };
}

/** One cluster: take its lease, read from its saved resourceVersion, ingest, save where it ended. */
export async function readCluster(cluster: string, deps: EventsDeps, requestId: string): Promise<ClusterEventsOutcome> {
  const out = emptyOutcome(cluster);
  const start = deps.now();
  const cursor = await deps.state.acquire(
    cluster,
    requestId,
    start,
    start + deps.reader.watchSeconds * 1000 + LEASE_MARGIN_MS,
  );
  if (!cursor) return { ...out, skipped: 'another invocation reads this cluster (lease held)' };
  let result: Awaited<ReturnType<EventsReader['read']>>;
  try {
    const api = await deps.api(cluster);
    const sink = new EventSink(cluster, api, deps, out, requestId);
    result = await new EventsReader(api, (objects) => sink.take(objects), { ...deps.reader, now: deps.now }).read(
      cursor.resourceVersion,
    );
  } catch (e) {
    result = {
      readable: false,
      error: `${(e as Error).name}: ${(e as Error).message}`.slice(0, 500),
      counts: out.counts,
    };
  }
  Object.assign(out.counts, result.counts);
  const progress = { resourceVersion: result.resourceVersion, readable: result.readable, error: result.error };
  await deps.state.save(cluster, requestId, deps.now(), { ...progress, counts: out.counts }, true);
  return { ...out, readable: result.readable, ...(result.error ? { error: result.error } : {}) };
}

/** Turns batches of event objects into incidents, as the log path turns lines into them. */
class EventSink {
  /** Uids counted by this invocation (no DynamoDB round trip for a series' next update). */
  private readonly seen = new Set<string>();
  private readonly nodes = new Map<string, Promise<string | undefined>>();
  private batch = 0;

  constructor(
    private readonly cluster: string,
    private readonly api: ClusterApi,
    private readonly deps: EventsDeps,
    private readonly out: ClusterEventsOutcome,
    private readonly requestId: string,
  ) {}

  async take(objects: readonly unknown[]): Promise<void> {
    const now = this.deps.now();
    const c = this.out.counts;
    c.received += objects.length;
    const rejects: Reject[] = [];
    const fresh: { uid: string; occurrence: Occurrence }[] = [];
    for (const raw of objects) {
      const r = readKubeEvent(raw, {
        cluster: this.cluster,
        now,
        trustedSandboxImages: this.deps.trustedSandboxImages,
      });
      if (r.kind === 'rejected') rejects.push({ reason: r.reason, record: recordOf(raw) });
      else if (r.kind === 'ignored') c.ignored += 1;
      else if (this.seen.has(r.uid)) c.duplicates += 1;
      else {
        this.seen.add(r.uid);
        if (r.truncated) c.truncated += 1;
        fresh.push(r);
      }
    }
    c.rejected += rejects.length;
    await this.keep(rejects, now);
    const claimed = await this.claim(fresh, now);
    c.classified += claimed.length;
    if (claimed.length) await this.open(claimed, now);
  }

  /** Counts each event once per window across invocations (a re-list reads old events again). */
  private async claim(fresh: readonly { uid: string; occurrence: Occurrence }[], now: number) {
    const claimed: { uid: string; occurrence: Occurrence }[] = [];
    for (const f of fresh) {
      if (await this.deps.state.claim(this.cluster, f.uid, now, this.deps.windowMs)) claimed.push(f);
      else this.out.counts.duplicates += 1;
    }
    return claimed;
  }

  private async open(claimed: readonly { uid: string; occurrence: Occurrence }[], now: number): Promise<void> {
    const occurrences = await Promise.all(claimed.map((x) => this.withInstance(x.occurrence)));
    const stats = { rejected: 0 };
    try {
      const r = await openIncidents(aggregate(occurrences), stats, this.deps, now);
      this.out.incidentsOpened.push(...r.opened);
      this.out.incidentsJoined.push(...r.joined);
      this.out.workflowsStarted.push(...r.started);
      this.out.counts.rejected += stats.rejected;
      await this.keep(r.unrecordable, now);
    } catch (e) {
      // Nothing was recorded for them: give the claims back so the next read counts them.
      for (const x of claimed) await this.deps.state.unclaim(this.cluster, x.uid);
      this.seen.clear();
      throw e;
    }
  }

  /**
   * A node-level occurrence gets the node's instance id from its Node object (`spec.providerID`), so
   * it folds with the log path's incident of that instance. The node name it starts from is the
   * reporting kubelet's word; the workflow resolves and probes the instance before acting.
   */
  private async withInstance(o: Occurrence): Promise<Occurrence> {
    const node = o.entities.node;
    if (!node || o.entities.instanceId || !NODE_SCOPED.has(CLASS_SCOPE[o.class])) return o;
    let id = this.nodes.get(node);
    if (!id) {
      id = this.api.node(node).then(
        (n) => instanceIdOfProviderId(n?.spec?.providerID),
        () => undefined,
      );
      this.nodes.set(node, id);
    }
    const instanceId = await id;
    if (!instanceId) return o;
    return {
      ...o,
      entities: { ...o.entities, instanceId },
      factSources: { ...o.factSources, instanceId: 'node-object' },
    };
  }

  private async keep(rejects: readonly Reject[], now: number): Promise<void> {
    if (!rejects.length) return;
    this.batch += 1;
    const key = await this.deps.rejects.keep(rejects, `${this.requestId}-${this.cluster}-${this.batch}`, now);
    if (key) this.out.rejectKeys.push(key);
  }
}

/** The event as received, for the rejected record (capped: a 1 MB message is not stored whole). */
function recordOf(raw: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(raw) ?? String(raw);
  } catch {
    s = String(raw);
  }
  return s.length > 16_384 ? `${s.slice(0, 16_384)}…[truncated ${s.length - 16_384} chars]` : s;
}
