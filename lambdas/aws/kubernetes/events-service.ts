import { CLASS_SCOPE } from '../../core/contract/failure-classes.js';
import { aggregate, candidateRank, type Occurrence } from '../../core/incident/incidents.js';
import type { Reject } from '../../core/incident/ingest.js';
import { instanceIdOfProviderId, readKubeEvent } from '../../core/incident/kube-events.js';
import { tenantBudgetNamespace } from '../../core/incident/provenance.js';
import { mapBounded } from '../../core/text/map-bounded.js';
import { type DroppedDeps, keepDropped } from '../ingest/dropped.js';
import { type DroppedCandidate, type OpenIncidentDeps, openIncidents } from '../ingest/open-incidents.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { EventCorroborator } from './event-corroboration.js';
import { EventsReader, type EventsReaderOptions, type ReadCounts } from './events-reader.js';
import type { EventsStateStore } from './events-state.js';

/** What the events function needs (its composition root builds the real ones). */
export interface EventsDeps extends OpenIncidentDeps, DroppedDeps {
  readonly clusters: readonly string[];
  readonly api: (cluster: string) => Promise<ClusterApi>;
  readonly state: EventsStateStore;
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
  /** Where what was not evaluated (uncorroborated, over a budget) is kept. */
  readonly droppedKeys: string[];
}

export type IngestCounts = {
  received: number;
  classified: number;
  ignored: number;
  rejected: number;
  truncated: number;
  /** Events already counted (a series' update, the same event in a re-list). */
  duplicates: number;
  /** Events the pod's status (or the Node's conditions) backed: keyed on the pod's bound node. */
  corroborated: number;
  /** Events no higher-rank fact backed (kept under dropped/, never opened anything). */
  uncorroborated: number;
  /** Events past their namespace's hourly budget of tenant signals (kept, not read further). */
  overBudget: number;
  /** Candidates a rank's limits kept from evaluation (kept, counted, noticed). */
  dropped: number;
};

const NODE_SCOPED = new Set(['node', 'subnet']);
/** Claims and corroboration reads in flight at once (one batch of up to 500 events). */
const AT_ONCE = 16;
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
      corroborated: 0,
      uncorroborated: 0,
      overBudget: 0,
      dropped: 0,
    },
    incidentsOpened: [],
    incidentsJoined: [],
    workflowsStarted: [],
    rejectKeys: [],
    droppedKeys: [],
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

/** One event this invocation counts: its uid (the dedupe claim), its occurrence, and what it names. */
interface Fresh {
  readonly uid: string;
  readonly occurrence: Occurrence;
  readonly about: { readonly kind: 'Pod' | 'Node'; readonly uid?: string };
}

/**
 * Turns batches of event objects into incidents, as the log path turns lines into them. Every event is
 * tenant rank: it is corroborated by the pod (or Node) it names before it may open anything, and keyed
 * on the pod's bound node; what is not corroborated, or over a budget, is kept and counted, and its
 * uid's claim is given back so a later update of a real event is counted again.
 */
class EventSink {
  /** Uids counted by this invocation (no DynamoDB round trip for a series' next update). */
  private readonly seen = new Set<string>();
  private readonly nodes = new Map<string, Promise<string | undefined>>();
  private readonly corroborator: EventCorroborator;
  private batch = 0;

  constructor(
    private readonly cluster: string,
    private readonly api: ClusterApi,
    private readonly deps: EventsDeps,
    private readonly out: ClusterEventsOutcome,
    private readonly requestId: string,
  ) {
    this.corroborator = new EventCorroborator(cluster, api, deps.now, deps.budget);
  }

  async take(objects: readonly unknown[]): Promise<void> {
    const now = this.deps.now();
    const c = this.out.counts;
    c.received += objects.length;
    const rejects: Reject[] = [];
    const fresh: Fresh[] = [];
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
    if (fresh.length) await this.open(fresh, now);
  }

  /**
   * Each event corroborated first (no claim, no write for what the pods do not back), then the
   * corroborated ones claimed (counted once per window) and opened or joined; what was not evaluated is
   * kept, and the claims of what limits dropped are given back.
   */
  private async open(fresh: readonly Fresh[], now: number): Promise<void> {
    const c = this.out.counts;
    // A namespace whose budget of tenant signals is spent costs no read at all (kept and counted below).
    const results = await mapBounded(fresh, AT_ONCE, (f) =>
      this.corroborator.isSpent(f.occurrence.tenantNamespace) ? Promise.resolve(undefined) : this.corroborate(f),
    );
    const overBudget = fresh.filter((_, i) => !results[i]);
    const read = results.flatMap((r) => (r ? [r] : []));
    const backed = read.filter((x) => x.occurrence.corroboratedBy);
    const claimed = await this.claim(
      backed.map((x) => x.f),
      now,
    );
    const evaluated = [...read.filter((x) => !x.occurrence.corroboratedBy), ...backed.filter((x) => claimed.has(x.f))];
    for (const f of overBudget) this.seen.delete(f.uid);
    for (const x of read) if (!x.occurrence.corroboratedBy) this.seen.delete(x.f.uid);
    c.classified += evaluated.length + overBudget.length;
    c.overBudget += overBudget.length;
    c.corroborated += claimed.size;
    c.uncorroborated += read.length - backed.length;
    const stats = { rejected: 0 };
    let r: Awaited<ReturnType<typeof openIncidents>>;
    try {
      r = await openIncidents(aggregate(evaluated.map((x) => x.occurrence)), stats, this.deps, now);
    } catch (e) {
      // Nothing was recorded for them: give the claims back so the next read counts them.
      await this.release([...claimed]);
      throw e;
    }
    this.out.incidentsOpened.push(...r.opened);
    this.out.incidentsJoined.push(...r.joined);
    this.out.workflowsStarted.push(...r.started);
    c.rejected += stats.rejected;
    await this.keep(r.unrecordable, now);
    const notEvaluated = [...r.dropped, ...r.deferred, ...overBudget.map((f) => overBudgetCandidate(this.cluster, f))];
    c.dropped += r.dropped.length + r.deferred.length;
    await this.keepDropped(notEvaluated, now);
    await this.release(backed.filter((x) => claimed.has(x.f) && wasDropped(x.occurrence, r)).map((x) => x.f));
  }

  /** Counts each corroborated event once per window across invocations (a re-list reads old events again). */
  private async claim(events: readonly Fresh[], now: number): Promise<Set<Fresh>> {
    const claims = await mapBounded(events, AT_ONCE, (f) =>
      this.deps.state.claim(this.cluster, f.uid, now, this.deps.windowMs),
    );
    this.out.counts.duplicates += claims.filter((x) => !x).length;
    return new Set(events.filter((_, i) => claims[i]));
  }

  /** One event corroborated (its occurrence keyed on the pod's node), not (kept with why), or over budget (undefined). */
  private async corroborate(f: Fresh): Promise<{ f: Fresh; occurrence: Occurrence } | undefined> {
    const r = await this.corroborator.corroborate(f);
    if ('overBudget' in r && r.overBudget) return undefined;
    if ('corroborated' in r && r.corroborated) return { f, occurrence: await this.withInstance(r.occurrence) };
    // Kept with why: the dropped record says what the pod (or node) showed instead.
    const why = 'why' in r ? r.why : 'not corroborated';
    return { f, occurrence: { ...f.occurrence, evidence: `[not corroborated: ${why}] ${f.occurrence.evidence}` } };
  }

  /** Gives back the claims of events that were not evaluated: their next update (or a re-list) counts again. */
  private async release(events: readonly Fresh[]): Promise<void> {
    for (const f of events) this.seen.delete(f.uid);
    await mapBounded(events, AT_ONCE, (f) => this.deps.state.unclaim(this.cluster, f.uid));
  }

  private async keepDropped(dropped: readonly DroppedCandidate[], now: number): Promise<void> {
    if (!dropped.length) return;
    this.batch += 1;
    const { droppedKey } = await keepDropped(
      dropped,
      `${this.requestId}-${this.cluster}-${this.batch}`,
      now,
      this.deps,
    );
    if (droppedKey) this.out.droppedKeys.push(droppedKey);
  }

  /**
   * A node-level occurrence gets the node's instance id from its Node object (`spec.providerID`), so
   * it folds with the log path's incident of that instance. The node is the corroborating pod's binding
   * (or the Node the event names, corroborated by its conditions); the workflow resolves and probes it.
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

/** An event past its namespace's budget of tenant signals, as a dropped candidate (kept and counted). */
function overBudgetCandidate(cluster: string, f: Fresh): DroppedCandidate {
  const namespace = tenantBudgetNamespace(f.occurrence.tenantNamespace);
  return {
    cluster,
    class: f.occurrence.class,
    key: `${cluster}|event:${f.uid}`,
    count: 1,
    limit: `tenant namespace-hour (${namespace}) signals`,
    samples: [f.occurrence.evidence],
    rank: 'tenant',
    namespace,
  };
}

/** Whether the occurrence's candidate was dropped or deferred (its key, rank and namespace). */
function wasDropped(o: Occurrence, r: { dropped: DroppedCandidate[]; deferred: DroppedCandidate[] }): boolean {
  const [c] = aggregate([o]);
  const ns = candidateRank(c) === 'tenant' ? (c.tenantNamespace ?? '-') : undefined;
  return [...r.dropped, ...r.deferred].some(
    (d) => d.key === c.key && d.rank === candidateRank(c) && (ns === undefined || d.namespace === ns),
  );
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
