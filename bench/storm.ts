/**
 * Issue 12 "Load and faults, measured": a storm of matching lines across many pods and nodes in one
 * minute, delivered as CloudWatch Logs subscription batches (one log stream per node, as the
 * Container Insights dataplane group has them), several invocations in flight at once (Lambda scales
 * out per batch), a share of batches delivered twice (delivery is at least once). Everything runs
 * through the deployed ingest function's code path: its role authorises every DynamoDB and Step
 * Functions call against the synthesized template, dynalite is the table, and Step Functions' own
 * StartExecution rules decide (name uniqueness: same name and input → the same execution; same name,
 * other input → ExecutionAlreadyExists).
 */
import { gzipSync } from 'node:zlib';
import { aggregate } from '../lambdas/core/incident/incidents.js';
import { type IngestConfig, readEvent } from '../lambdas/core/incident/ingest.js';
import type { LocalTable } from '../local/dynamo.js';
import { localIngest } from '../local/ingest-runtime.js';
import { freshIncidentTable } from '../local/local-workflow.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../local/template.js';

export interface StormOptions {
  readonly lines: number;
  readonly pods: number;
  readonly nodes: number;
  /** Log events per subscription delivery. @default 1000 */
  readonly batchSize?: number;
  /** Invocations in flight at once. @default 10 */
  readonly concurrency?: number;
  /** Share of deliveries sent a second time. @default 0.1 */
  readonly duplicateShare?: number;
  /** The cluster's dataplane log group. @default the local cluster's */
  readonly logGroup?: string;
}

export interface StormFigures {
  readonly lines: number;
  readonly deliveries: number;
  readonly duplicateDeliveries: number;
  /** Distinct (cluster, scope, class) keys in the storm: the most workflows it may start. */
  readonly distinctIncidents: number;
  readonly startCalls: number;
  readonly executions: number;
  readonly dynamoWrites: number;
  readonly writesPerLine: number;
  readonly rejected: number;
  readonly ms: number;
  readonly linesPerSecond: number;
}

const START = Date.parse('2026-11-30T08:00:00Z');
const CLUSTER_GROUP = '/aws/containerinsights/prod-eu/dataplane';
export const STORM_CONFIG: IngestConfig = { logGroupClusters: { [CLUSTER_GROUP]: 'prod-eu' }, accountScope: 'account' };
const PAUSE = '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10';
const IMAGES = 5;

const hostOf = (n: number) => `ip-10-0-${Math.floor(n / 200)}-${(n % 200) + 10}.eu-west-1.compute.internal`;
const instanceOf = (n: number) => `i-0${(0xa000000000000 + n).toString(16)}`;
const q = (s: string) => s.replace(/"/g, '\\"');

/**
 * kubelet's structured klog line for a sandbox whose pause image cannot be pulled (401 from ECR: the
 * pause image was garbage-collected and the node has no ECR credentials for it), or for a workload
 * image that does not exist; wrapped in the Container Insights dataplane envelope.
 */
function kubeletRecord(i: number, o: StormOptions): { node: number; message: string } {
  const pod = i % o.pods;
  const node = pod % o.nodes;
  const time = new Date(START + Math.floor((i / o.lines) * 60_000));
  const klogTime = `${time.toISOString().slice(11, 23)}000`;
  // Every node sees both kinds over the minute: 4 in 5 lines are sandbox failures, 1 in 5 image pulls.
  const sandbox = (Math.floor(i / o.pods) + pod) % 5 !== 0;
  const image = `docker.io/team/app-${Math.floor((pod / o.pods) * IMAGES)}:v9`;
  const err = sandbox
    ? `rpc error: code = Unknown desc = failed to get sandbox image "${PAUSE}": failed to pull image "${PAUSE}": failed to pull and unpack image "${PAUSE}": failed to resolve reference "${PAUSE}": pulling from host 602401143452.dkr.ecr.eu-west-1.amazonaws.com failed with status code [manifests 3.10]: 401 Unauthorized`
    : `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
  const what = sandbox ? '"Failed to create sandbox for pod"' : '"Failed to pull image"';
  const where = sandbox ? 'kuberuntime_sandbox.go:72' : 'remote_image.go:180';
  const text = `E1130 ${klogTime}    3412 ${where}] ${what} err="${q(err)}" pod="team-${pod % 20}/app-${pod}"${sandbox ? '' : ` image="${image}"`}`;
  const message = JSON.stringify({
    hostname: hostOf(node),
    ec2_instance_id: instanceOf(node),
    systemd_unit: 'kubelet.service',
    message: text,
  });
  return { node, message };
}

/** The storm as subscription deliveries: per node log stream, `batchSize` events each. */
export function stormDeliveries(o: StormOptions): unknown[] {
  const perNode = new Map<number, { timestamp: number; message: string }[]>();
  for (let i = 0; i < o.lines; i++) {
    const { node, message } = kubeletRecord(i, o);
    const events = perNode.get(node) ?? [];
    events.push({ timestamp: START + Math.floor((i / o.lines) * 60_000), message });
    perNode.set(node, events);
  }
  const size = o.batchSize ?? 1000;
  const out: unknown[] = [];
  for (const [node, events] of perNode) {
    for (let b = 0; b < events.length; b += size) {
      const logEvents = events.slice(b, b + size).map((e, k) => ({ id: `${node}-${b + k}`, ...e }));
      const batch = {
        messageType: 'DATA_MESSAGE',
        owner: '111122223333',
        logGroup: o.logGroup ?? CLUSTER_GROUP,
        logStream: `${hostOf(node)}-kubelet.service`,
        subscriptionFilters: ['PodDoctorDetection'],
        logEvents,
      };
      out.push({ awslogs: { data: gzipSync(JSON.stringify(batch)).toString('base64') } });
    }
  }
  return out;
}

/** Distinct (cluster, scope, class) keys of the whole storm, read offline by the same reader. */
function distinctKeys(deliveries: readonly unknown[]): number {
  const occurrences = deliveries.flatMap((d) => readEvent(d, STORM_CONFIG, START + 60_000).occurrences);
  return new Set(aggregate(occurrences).map((c) => c.key)).size;
}

async function inFlight<T>(items: readonly T[], limit: number, run: (item: T, i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await run(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Runs the storm through the ingest function of `template` and measures it. */
export async function runStorm(template: ResolvedTemplate, table: LocalTable, o: StormOptions): Promise<StormFigures> {
  const deliveries = stormDeliveries(o);
  const share = o.duplicateShare ?? 0.1;
  const duplicates = deliveries.filter((_, i) => (i * 7919) % 100 < share * 100);
  const all = [...deliveries, ...duplicates];
  const ingest = localIngest(template, table, { config: STORM_CONFIG, now: () => START + 61_000 });
  let rejected = 0;
  const t0 = performance.now();
  await inFlight(all, o.concurrency ?? 10, async (event, i) => {
    const r = await ingest.invoke(event, `storm-${i}`);
    rejected += r.stats.rejected;
  });
  const ms = performance.now() - t0;
  const dynamoWrites = ingest.authz.decisions.filter((d) => /^dynamodb:(PutItem|UpdateItem)$/.test(d.action)).length;
  return {
    lines: o.lines,
    deliveries: all.length,
    duplicateDeliveries: duplicates.length,
    distinctIncidents: distinctKeys(deliveries),
    startCalls: ingest.startCalls(),
    executions: ingest.started.length,
    dynamoWrites,
    writesPerLine: dynamoWrites / o.lines,
    rejected,
    ms,
    linesPerSecond: (o.lines / ms) * 1000,
  };
}

/** `npm run bench`: the 100,000-line storm, figures in one table. True when it held its limits. */
export async function benchStorm(): Promise<boolean> {
  const template = synthesizedTemplate();
  const f = await runStorm(template, await freshIncidentTable(template), { lines: 100_000, pods: 500, nodes: 50 });
  console.log(
    `storm: ${f.lines} lines (500 pods, 50 nodes, 1 minute) in ${f.deliveries} deliveries (${f.duplicateDeliveries} duplicates), 10 in flight`,
  );
  console.log(
    `  ${f.linesPerSecond.toFixed(0)} lines/s locally (dynalite + IAM simulation); ${f.distinctIncidents} incidents → ${f.executions} executions (${f.startCalls} StartExecution calls); ${f.dynamoWrites} DynamoDB writes = ${f.writesPerLine.toFixed(4)} per line; ${f.rejected} rejected`,
  );
  const held = f.executions === f.distinctIncidents && f.rejected === 0;
  console.log(`  one workflow per (cluster, scope, class, window): ${held ? 'holds' : 'BROKEN'}`);
  return held;
}
