/**
 * A hostile mix through the deployed ingest code (its role decides every call, dynalite is the table,
 * Step Functions' StartExecution rules, the evidence bucket, the topic): one delivery holds a real
 * failure (one node's sandbox image cannot be pulled, 50 lines), 2,000 distinct images that do not
 * exist (one line each: what a workload, or anyone who can write a log line, can produce in one
 * 58 KB batch), 500 forged sandbox lines that each name another node in their envelope, and lines
 * carrying secrets; further deliveries of the same hour repeat the flood. Measured per delivery:
 * incidents opened, executions started and e-mails against the limits (lambdas/core/incident/ingest-limits.ts).
 */
import { gzipSync } from 'node:zlib';
import type { IngestConfig } from '../lambdas/core/incident/ingest.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../lambdas/core/incident/ingest-limits.js';
import type { LocalTable } from '../local/dynamo.js';
import { localIngest } from '../local/ingest-runtime.js';
import { freshIncidentTable } from '../local/local-workflow.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../local/template.js';
import { leakedIn, secretCorpus } from '../test/support/secrets.js';

const START = Date.parse('2026-11-30T08:00:00Z');
const GROUP = '/aws/containerinsights/prod-eu/dataplane';
const CONFIG: IngestConfig = { logGroupClusters: { [GROUP]: 'prod-eu' }, accountScope: 'account' };
const PAUSE = '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10';
const REAL_NODE = { host: 'ip-10-0-7-21.eu-west-1.compute.internal', id: 'i-0a7d1c2b3e4f50617' };

export interface HostileOptions {
  /** Distinct images that do not exist, one line each, per delivery. @default 2000 */
  readonly images?: number;
  /** Forged sandbox lines, each naming another node, in the first delivery. @default 500 */
  readonly forged?: number;
  /** Deliveries of the same hour (the first holds the real failure, the forged lines and the secrets). @default 4 */
  readonly deliveries?: number;
  readonly limits?: IngestLimits;
}

export interface DeliveryFigures {
  readonly lines: number;
  readonly candidates: number;
  readonly incidentsOpened: number;
  readonly executionsStarted: number;
  readonly dropped: number;
  readonly deferred: number;
  readonly notices: number;
  /** Notices plus one summary per execution started (approval requests come on top only where a class asks a human). */
  readonly emails: number;
  readonly dynamoWrites: number;
  readonly ms: number;
}

export interface HostileFigures {
  readonly limits: IngestLimits;
  readonly perDelivery: DeliveryFigures[];
  /** The real failure's incident was opened and its execution started in the first delivery. */
  readonly realFailureStarted: boolean;
  /** Secrets of the corpus found in rows, execution inputs, kept objects or notices. */
  readonly leaked: string[];
  /** Candidates kept under dropped/ (one object per delivery that dropped any). */
  readonly keptDropped: number;
}

const q = (s: string) => s.replace(/"/g, '\\"');

/** A Container Insights dataplane record: kubelet's klog line in the envelope a node (or a forger) writes. */
function record(node: { host: string; id: string }, at: number, what: string, err: string, extra = ''): string {
  const t = `${new Date(at).toISOString().slice(11, 23)}000`;
  return envelope(node, `E1130 ${t}    3412 kuberuntime_sandbox.go:72] "${what}" err="${q(err)}"${extra}`);
}

function envelope(node: { host: string; id: string }, message: string): string {
  return JSON.stringify({ hostname: node.host, ec2_instance_id: node.id, systemd_unit: 'kubelet.service', message });
}

const sandboxErr = `rpc error: code = Unknown desc = failed to get sandbox image "${PAUSE}": failed to pull image "${PAUSE}": failed to pull and unpack image "${PAUSE}": failed to resolve reference "${PAUSE}": pulling from host 602401143452.dkr.ecr.eu-west-1.amazonaws.com failed with status code [manifests 3.10]: 401 Unauthorized`;

function imageLine(n: number, d: number, at: number): string {
  const image = `docker.io/flood${d}/img-${n}:v1`;
  const err = `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
  return record(REAL_NODE, at, 'Failed to pull image', err, ` pod="t/p-${n}" image="${image}"`);
}

function batch(messages: readonly string[], d: number): unknown {
  const logEvents = messages.map((message, i) => ({ id: `${d}-${i}`, timestamp: START + d * 60_000 + i, message }));
  const b = {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: GROUP,
    logStream: `${REAL_NODE.host}-kubelet.service`,
    subscriptionFilters: ['PodDoctorDetection'],
    logEvents,
  };
  return { awslogs: { data: gzipSync(JSON.stringify(b)).toString('base64') } };
}

/** The hostile deliveries (message lists) of one hour: the first carries everything, the rest the flood only. */
export function hostileMessages(o: HostileOptions = {}): string[][] {
  const images = o.images ?? 2000;
  const out: string[][] = [];
  for (let d = 0; d < (o.deliveries ?? 4); d++) {
    const at = START + d * 60_000;
    const lines = Array.from({ length: images }, (_, n) => imageLine(n, d, at));
    if (d === 0) {
      for (let n = 0; n < (o.forged ?? 500); n++) {
        const forged = {
          host: `ip-10-9-${n >> 8}-${n & 255}.eu-west-1.compute.internal`,
          id: `i-0f${String(n).padStart(15, '0')}`,
        };
        lines.push(record(forged, at, 'Failed to create sandbox for pod', sandboxErr));
      }
      for (const s of secretCorpus()) lines.push(envelope(REAL_NODE, s.line));
      for (let n = 0; n < 50; n++)
        lines.push(record(REAL_NODE, at + n, 'Failed to create sandbox for pod', sandboxErr));
    }
    out.push(lines);
  }
  return out;
}

/** Runs the hostile hour through the ingest function of `template`; figures per delivery. */
export async function runHostile(
  template: ResolvedTemplate,
  table: LocalTable,
  o: HostileOptions = {},
): Promise<HostileFigures> {
  const limits = o.limits ?? DEFAULT_INGEST_LIMITS;
  let now = START + 60_000;
  const ingest = localIngest(template, table, { config: CONFIG, now: () => now, limits });
  const perDelivery: DeliveryFigures[] = [];
  let realFailureStarted = false;
  for (const [d, messages] of hostileMessages(o).entries()) {
    now = START + (d + 1) * 60_000;
    const [started, notices, writes] = [ingest.started.length, ingest.notices.length, dynamoWrites(ingest)];
    const t0 = performance.now();
    const r = await ingest.invoke(batch(messages, d), `hostile-${d}`);
    const ms = performance.now() - t0;
    if (d === 0) realFailureStarted = ingest.started.some((i) => i.scopeValue === REAL_NODE.id);
    const noticed = ingest.notices.length - notices;
    perDelivery.push({
      lines: messages.length,
      candidates: r.incidentsOpened.length + r.incidentsJoined.length + r.incidentsDropped,
      incidentsOpened: r.incidentsOpened.length,
      executionsStarted: ingest.started.length - started,
      dropped: r.incidentsDropped,
      deferred: r.executionsDeferred,
      notices: noticed,
      emails: noticed + (ingest.started.length - started),
      dynamoWrites: dynamoWrites(ingest) - writes,
      ms,
    });
  }
  const kept = [...ingest.objects].filter(([k]) => k.startsWith('dropped/'));
  const everything = JSON.stringify([await table.scan(), ingest.started, kept, ingest.notices]);
  return {
    limits,
    perDelivery,
    realFailureStarted,
    leaked: leakedIn(everything, secretCorpus()),
    keptDropped: kept.reduce((n, [, body]) => n + body.split('\n').filter(Boolean).length, 0),
  };
}

function dynamoWrites(ingest: ReturnType<typeof localIngest>): number {
  return ingest.authz.decisions.filter((d) => /^dynamodb:(PutItem|UpdateItem)$/.test(d.action)).length;
}

/** Whether every delivery and the hour stayed within the limits, the real failure started and no secret leaked. */
export function heldLimits(f: HostileFigures): boolean {
  const sum = (k: keyof DeliveryFigures) => f.perDelivery.reduce((n, d) => n + d[k], 0);
  const l = f.limits;
  return (
    f.perDelivery.every(
      (d) => d.incidentsOpened <= l.maxIncidentsPerDelivery && d.executionsStarted <= l.maxIncidentsPerDelivery,
    ) &&
    sum('incidentsOpened') <= l.maxIncidentsPerClusterPerHour &&
    sum('executionsStarted') <= l.maxExecutionsPerClusterPerHour &&
    sum('notices') === 1 &&
    f.realFailureStarted &&
    f.leaked.length === 0 &&
    f.keptDropped === sum('dropped') + sum('deferred')
  );
}

/** `npm run bench`: the hostile hour, figures per delivery against the limits. True when they held. */
export async function benchHostile(): Promise<boolean> {
  const template = synthesizedTemplate();
  const f = await runHostile(template, await freshIncidentTable(template));
  const l = f.limits;
  console.log(
    `hostile mix (one cluster, one hour): limits ${l.maxIncidentsPerDelivery} incidents and executions per delivery; ${l.maxIncidentsPerClusterPerHour} incidents, ${l.maxExecutionsPerClusterPerHour} executions per cluster and hour`,
  );
  for (const [i, d] of f.perDelivery.entries())
    console.log(
      `  delivery ${i + 1}: ${d.lines} lines, ${d.candidates} candidates → ${d.incidentsOpened} incidents, ${d.executionsStarted} executions, ${d.emails} e-mails (${d.notices} notice); ${d.dropped} dropped, ${d.deferred} deferred; ${d.dynamoWrites} DynamoDB writes; ${d.ms.toFixed(0)} ms`,
    );
  const held = heldLimits(f);
  console.log(
    `  real failure started in delivery 1: ${f.realFailureStarted ? 'yes' : 'NO'}; ${f.keptDropped} candidates kept under dropped/; secrets leaked: ${f.leaked.length}; limits ${held ? 'hold' : 'BROKEN'}`,
  );
  return held;
}
