/**
 * The Kubernetes events path for `npm run bench` (issue 29): first Warning event → StartExecution,
 * p50 and p95, modelled with cited component latencies and measured against the local API server,
 * and its cost per cluster-month, each next to the log path's (first log line → StartExecution).
 * Target on a cluster without dataplane logs: p50 ≤ 30 s, p95 ≤ 75 s.
 */

import { localEvents } from '../local/events-runtime.js';
import { KubeApiServer } from '../local/kube-api-server.js';
import { freshIncidentTable } from '../local/local-workflow.js';
import { synthesizedTemplate } from '../local/template.js';
import { LAMBDA_GB_SECOND_USD, LAMBDA_REQUEST_USD } from './detection.js';
import { COMPONENTS, type Component, quantile, seeded } from './latency-model.js';

export const TARGET_P50_SECONDS = 30;
export const TARGET_P95_SECONDS = 75;

/** The reader's schedule: EventBridge Scheduler's shortest rate (one minute). */
const PERIOD_SECONDS = 60;
/** The deployed reader's watch per invocation (lib/constructs/kubernetes-events.ts). */
export const WATCH_SECONDS = 50;
/** The reader's own batching delay (events-reader.ts flushMs). */
const FLUSH_SECONDS = 0.2;
const MEMORY_GB = 0.25;

/** Components of the events path beyond those the log model already cites (latency-model.ts). */
export const EVENT_COMPONENTS: Readonly<Record<string, Component>> = {
  // kubelet's recorder hands the event to its broadcaster, which writes it to the API server from a
  // goroutine (client-go tools/record/event.go); no latency is published.
  eventWrite: {
    p50: 0.05,
    p90: 0.5,
    kind: 'assumed',
    source: 'https://github.com/kubernetes/client-go/blob/master/tools/record/event.go',
    note: 'kubelet event recorder → API server (asynchronous broadcaster)',
  },
  // A watch is served from the API server's watch cache: a change reaches open watches as it is stored.
  watchDelivery: {
    p50: 0.05,
    p90: 0.3,
    kind: 'assumed',
    source: 'https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes',
    note: 'stored event → open watch',
  },
  // Each invocation: Lambda start (cold for the first only), the EKS token (cached 10 min), then the
  // watch opens from the saved resourceVersion and replays what happened since.
  readerStart: {
    p50: 0.4,
    p90: 1.2,
    kind: 'assumed',
    source: 'https://aws.amazon.com/blogs/compute/operating-lambda-performance-optimization-part-1/',
    note: 'invocation start → watch open (init, token, TLS, one request)',
  },
};

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

export interface PathModel {
  readonly p50: number;
  readonly p95: number;
}

function summarise(draws: number[]): PathModel {
  draws.sort((a, b) => a - b);
  return { p50: percentile(draws, 0.5), p95: percentile(draws, 0.95) };
}

/**
 * First Warning event → StartExecution. Each invocation starts on the minute and watches `watch`
 * seconds after its start-up; an event stored while no watch is open waits for the next invocation,
 * whose watch replays it from the saved resourceVersion.
 */
export function modelEventsPath(watch = WATCH_SECONDS, samples = 20_000, seed = 29): PathModel {
  const random = seeded(seed);
  const draw = (c: Component) => quantile(c, random());
  const draws: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const happened = random() * PERIOD_SECONDS;
    const stored = happened + draw(EVENT_COMPONENTS.eventWrite);
    const minute = Math.floor(stored / PERIOD_SECONDS) * PERIOD_SECONDS;
    const opens = draw(EVENT_COMPONENTS.readerStart);
    const at = stored - minute;
    let seen: number;
    if (at >= opens && at < opens + watch) seen = stored + draw(EVENT_COMPONENTS.watchDelivery);
    else if (at < opens) seen = minute + opens;
    else seen = minute + PERIOD_SECONDS + draw(EVENT_COMPONENTS.readerStart);
    draws.push(seen - happened + FLUSH_SECONDS + draw(COMPONENTS.apiCall) + draw(COMPONENTS.ingestHandler));
  }
  return summarise(draws);
}

/** First log line → StartExecution: Fluent Bit's flush, subscription delivery, a cold ingest function. */
export function modelLogPath(samples = 20_000, seed = 29): PathModel {
  const random = seeded(seed);
  const draw = (c: Component) => quantile(c, random());
  const draws: number[] = [];
  for (let i = 0; i < samples; i += 1)
    draws.push(
      draw(COMPONENTS.logShipping) +
        draw(COMPONENTS.subscriptionDelivery) +
        draw(COMPONENTS.lambdaColdInit) +
        draw(COMPONENTS.ingestHandler),
    );
  return summarise(draws);
}

/** us-east-1 list prices. */
const PRICES = {
  // https://aws.amazon.com/eventbridge/pricing/ (Scheduler: $1.00 per million invocations after 14 million free)
  schedulerInvocation: 1 / 1_000_000,
  // https://aws.amazon.com/dynamodb/pricing/on-demand/ ($0.625 per million write request units since Nov 2024)
  dynamoWrite: 0.625 / 1_000_000,
};
const INVOCATIONS_PER_MONTH = (30 * 24 * 3600) / PERIOD_SECONDS;

export interface MonthlyCost {
  readonly invocations: number;
  readonly gbSeconds: number;
  /** Kubernetes API requests per cluster (watches opened; lists only after a 410). */
  readonly apiCalls: number;
  readonly dynamoWrites: number;
  /** US$ per cluster-month. */
  readonly usd: number;
}

/**
 * The events reader per cluster-month: one invocation a minute reads every cluster at once (the
 * watches are idle waits, so the GB-seconds are shared), each cluster costs its watch requests and
 * two state writes an invocation (lease, saved resourceVersion); free tiers left out.
 */
export function eventsCost(clusters: number, watch = WATCH_SECONDS): MonthlyCost {
  const invocations = INVOCATIONS_PER_MONTH;
  const gbSeconds = invocations * (watch + 1) * MEMORY_GB;
  const shared =
    gbSeconds * LAMBDA_GB_SECOND_USD + invocations * LAMBDA_REQUEST_USD + invocations * PRICES.schedulerInvocation;
  const dynamoWrites = invocations * 2;
  return {
    invocations,
    gbSeconds,
    apiCalls: invocations,
    dynamoWrites,
    usd: shared / clusters + dynamoWrites * PRICES.dynamoWrite,
  };
}

/** A recorded pause-image event of a pod on its own node (its own incident). */
function benchEvent(i: number, template: Record<string, unknown>): Record<string, unknown> {
  const node = `ip-10-0-7-${i}.eu-west-1.compute.internal`;
  return {
    ...template,
    metadata: { name: `bench-${i}.17a000f`, namespace: 'team-a', uid: `bench-uid-${i}` },
    involvedObject: { kind: 'Pod', namespace: 'team-a', name: `bench-${i}`, apiVersion: 'v1' },
    source: { component: 'kubelet', host: node },
    reportingInstance: node,
  };
}

/**
 * Measured on this machine against the local HTTPS API server, with the reader as deployed (its
 * role, dynalite, StartExecution refused as Step Functions would): event stored → StartExecution,
 * while a watch is open, and for events stored between invocations, invocation start → StartExecution.
 */
export async function measureEventsPath(trials = 12): Promise<{ inWatch: number[]; catchUp: number[] }> {
  const template = synthesizedTemplate();
  const table = await freshIncidentTable(template);
  const server = new KubeApiServer({ groups: ['pod-doctor'] });
  const endpoint = await server.start();
  const [recorded] = server.cluster.events['team-a/api-5d8f7c9b6-x2kq9'] as Record<string, unknown>[];
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    await localEvents(template, table, { server, endpoint, watchSeconds: 1.5 }).invoke('bench-start');
    const reader = localEvents(template, table, { server, endpoint, watchSeconds: 2 + trials * 0.4 });
    const run = reader.invoke('bench-watch');
    const written: number[] = [];
    for (let i = 0; i < trials; i += 1) {
      await sleep(400);
      written.push(Date.now());
      server.coreEvents.write(benchEvent(i, recorded));
    }
    await run;
    const inWatch = reader.starts.startedAt.map((t, i) => (t - (written[i] ?? t)) / 1000);
    for (let i = 0; i < trials; i += 1) server.coreEvents.write(benchEvent(100 + i, recorded));
    const next = localEvents(template, table, { server, endpoint, watchSeconds: 1.5 });
    const t0 = Date.now();
    await next.invoke('bench-catch-up');
    return { inWatch, catchUp: next.starts.startedAt.map((t) => (t - t0) / 1000) };
  } finally {
    await server.stop();
  }
}

const fmt = (m: PathModel) => `p50 ${m.p50.toFixed(1)} s, p95 ${m.p95.toFixed(1)} s`;

/** Prints the events path next to the log path; true when the model meets both targets. */
export async function benchEvents(logCostPerGb: number): Promise<boolean> {
  console.log('first Warning event → StartExecution (Kubernetes events path) vs first log line → StartExecution:');
  for (const [id, c] of Object.entries(EVENT_COMPONENTS))
    console.log(`  ${id.padEnd(14)} p50 ${c.p50} s, p90 ${c.p90} s  ${c.kind.padEnd(10)} ${c.note} — ${c.source}`);
  console.log(
    `  (with apiCall, ingestHandler, logShipping, subscriptionDelivery, lambdaColdInit as above; the reader batches for ${FLUSH_SECONDS} s)`,
  );
  const events = modelEventsPath();
  const logs = modelLogPath();
  const ok = events.p50 <= TARGET_P50_SECONDS && events.p95 <= TARGET_P95_SECONDS;
  console.log(
    `events path, ${WATCH_SECONDS} s watch each minute: ${fmt(events)} — ${ok ? 'meets' : 'MISSES'} p50 ≤ ${TARGET_P50_SECONDS} s, p95 ≤ ${TARGET_P95_SECONDS} s`,
  );
  console.log(`log path (dataplane group, subscription):   ${fmt(logs)}`);
  for (const watch of [30, 15])
    console.log(
      `  a ${watch} s watch instead: ${fmt(modelEventsPath(watch))}, $${eventsCost(1, watch).usd.toFixed(2)} per cluster-month`,
    );
  const measured = await measureEventsPath();
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const w = sorted(measured.inWatch);
  const c = sorted(measured.catchUp);
  console.log(
    `measured here (local API server, reader as deployed): stored → StartExecution while watching p50 ${percentile(w, 0.5).toFixed(2)} s, p95 ${percentile(w, 0.95).toFixed(2)} s (${w.length} events); stored between invocations: invocation start → StartExecution p50 ${percentile(c, 0.5).toFixed(2)} s (${c.length} events)`,
  );
  for (const n of [1, 10]) {
    const cost = eventsCost(n);
    console.log(
      `events path cost, ${n} cluster(s) per stack: $${cost.usd.toFixed(2)} per cluster-month (${cost.invocations} invocations × ${WATCH_SECONDS + 1} s × ${MEMORY_GB * 1024} MB = ${Math.round(cost.gbSeconds)} GB-s shared; per cluster ${cost.apiCalls} watch requests and ${cost.dynamoWrites} state writes)`,
    );
  }
  console.log(
    `log path cost: $${logCostPerGb.toFixed(5)} per GB of dataplane logs (the filter drops healthy lines); at an assumed 1 GB a day per cluster $${(logCostPerGb * 30).toFixed(3)} per cluster-month, plus what Container Insights itself costs the cluster`,
  );
  return ok;
}
