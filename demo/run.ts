import '../local/polyfills.js';
import '../local/quiet.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { APPROVAL_STATE } from '../cli/mcp/action-requests.js';
import type { NoticeEvent } from '../lambdas/aws/voices/notices.js';
import { nodeActions, remedies } from '../lambdas/aws/workflow/summarize-results.js';
import { openIncidentKey } from '../lambdas/core/contract/incident-table.js';
import { orderSignals, type Signal } from '../lambdas/core/contract/signals.js';
import type { AgentRequest } from '../lambdas/core/door/agent-request.js';
import type { DoorResult, ExecutionState } from '../lambdas/core/workflow/execution-state.js';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { healthyAccount, NODE_DNS } from '../local/account-snapshot.js';
import { configDocumentOf } from '../local/config-store.js';
import type { LocalTable } from '../local/dynamo.js';
import { localEvents } from '../local/events-runtime.js';
import { localIngest } from '../local/ingest-runtime.js';
import { LocalCluster } from '../local/local-cluster.js';
import { startKubelet } from '../local/local-kubelet.js';
import { definitionOf, freshIncidentTable, type RunResult, runWorkflow } from '../local/local-workflow.js';
import { simulatedNode } from '../local/node-adapters.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../local/template.js';
import { type CachedTemplate, cachedTemplate } from '../local/template-cache.js';
import { seededCluster, watchedEvents } from './cluster-seeds.js';
import { type NodeKind, NodeStage, nodeFor } from './nodes.js';
import { DEMO_CONFIG, type Scenario } from './scenarios.js';
import { type Timeline, timelineOf } from './timeline.js';
import { type ClusterEventView, clusterEventsOf, type RunRecords, runNotices } from './voices.js';

/** An incident as the incident table holds it after detection. */
export interface DemoIncident {
  readonly class: string;
  readonly scope: string;
  readonly scopeValue: string;
  /** Occurrences folded into it (log lines, events, CloudTrail events). */
  readonly count: number;
  readonly signals: readonly Signal[];
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly title: string;
  readonly class: string;
  readonly expected: Scenario['expect'];
  /** Incidents detection recorded (a storm folds into one), with the signals each came from. */
  readonly incidents: readonly DemoIncident[];
  /** The signals the scenario's incident came from (its open row in the incident table). */
  readonly signals: readonly Signal[];
  readonly findings: readonly { id: string; status: string; summary: string }[];
  /** The account remedy (first, when one ran) and the node action, with their statuses. */
  readonly actions: readonly { id: string; status: string }[];
  /** Who approved: the demo answers approval requests itself, and says so. */
  readonly approval?: string;
  readonly outcome: string;
  readonly rootCause: string;
  readonly summary: { subject: string; message: string };
  readonly states: readonly string[];
  /** First seen → opened → diagnosed → approval → action → verified, from the execution history. */
  readonly timeline: Timeline;
  readonly node: NodeKind;
  readonly ms: number;
  /** What chat and the pagers would receive: one notice per approval asked, then the run's. */
  readonly notices: readonly NoticeEvent[];
  /** The Kubernetes events pod-doctor wrote back (read from the scenario's local API server). */
  readonly clusterEvents: readonly ClusterEventView[];
  /** The run's incident table and evidence (with `keepRecords`: what `pod-doctor mcp --demo` serves). */
  readonly records?: RunRecords;
}

/** When the demo's notices are made (after the scenarios' runs). */
const NOTICE_TIME = Date.parse('2026-11-29T10:07:00Z');

const CONFIG = { logGroupClusters: { '/aws/containerinsights/prod-eu/dataplane': 'prod-eu' }, accountScope: 'account' };
const START = Date.parse('2026-11-29T10:00:00Z');

function subscriptionPayload(lines: readonly string[]) {
  const batch = {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod-eu/dataplane',
    logStream: 'ip-10-0-12-34.eu-west-1.compute.internal-dataplane',
    subscriptionFilters: ['pod-doctor'],
    logEvents: lines.map((message, i) => ({ id: String(i), timestamp: START + i * 250, message })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(batch))).toString('base64') } };
}

/**
 * The real ingest path as the deployed function runs it (its role, environment and limits) on the
 * dynalite incident table; returns the workflow inputs of the executions it started.
 */
async function ingestAll(
  events: readonly unknown[],
  table: LocalTable,
  tag: string,
  template = synthesizedTemplate(),
): Promise<Record<string, unknown>[]> {
  const ingest = localIngest(template, table, { config: CONFIG, now: () => START + 60_000 });
  for (const [i, e] of events.entries()) await ingest.invoke(e, `${tag}-${i}`);
  return ingest.started;
}

type WorkflowOutput = Pick<ExecutionState, 'door'> & {
  plan?: { findings?: { id: string; status: string; summary: string }[] };
  summary?: { subject: string; message: string; outcome: string };
};

/**
 * Door results as the demo shows them: each action's kind and what became of it. A result that
 * neither sent a command nor applied anything says "not run" with the door's outcome (refused,
 * not approved, dry run), as the demo's readers (mcp-demo's "changes made") expect.
 */
function shown(...results: (DoorResult | undefined)[]): { id: string; status: string }[] {
  return results
    .filter((r) => r !== undefined)
    .map((r) => {
      const status = r.record?.status ?? r.command?.status;
      return { id: r.kind, status: status ?? (r.outcome === 'done' ? 'done' : `not run: ${r.outcome}`) };
    });
}

/** The node actions of a run with their statuses, from the door's results: the first one (when a follow-up ran), then the plan's. */
function nodeActionsOf(o: WorkflowOutput): { id: string; status: string }[] {
  const { first, current } = nodeActions(o as ExecutionState);
  return shown(first, current);
}

export interface ReplayResult {
  readonly class: string;
  readonly incident: { incidentId: string; scope: string; scopeValue: string };
  readonly count: number;
  readonly findings: readonly { id: string; status: string; summary: string }[];
  readonly actions: readonly { id: string; status: string }[];
  readonly outcome: string;
  readonly summary: { subject: string; message: string };
}

/** Replays saved events through ingest and, per incident, the workflow (recorded demo account, simulated node). */
export async function replay(events: readonly unknown[]): Promise<ReplayResult[]> {
  // The local deployment's template, from the disk cache when the code that shapes it is unchanged.
  const { template } = cachedTemplate(LOCAL_CONFIG);
  const table = await freshIncidentTable(template);
  const started = await ingestAll(events, table, 'replay', template);
  const definition = definitionOf(template);
  const out: ReplayResult[] = [];
  for (const input of started) {
    const r = await runWorkflow(input, {
      account: healthyAccount(),
      node: simulatedNode([]),
      template,
      definition,
      table,
    });
    const o = r.output as WorkflowOutput;
    const row = await table.get(openIncidentKey(String(input.incidentKey)));
    out.push({
      class: String(input.class),
      incident: {
        incidentId: String(input.incidentId),
        scope: String(input.scope),
        scopeValue: String(input.scopeValue),
      },
      count: Number(row?.occurrences ?? 1),
      findings: (o.plan?.findings ?? []).map((f) => ({ id: f.id, status: f.status, summary: f.summary })),
      actions: nodeActionsOf(o),
      outcome: o.summary?.outcome ?? 'workflow failed',
      summary: {
        subject: o.summary?.subject ?? r.sns.at(-1)?.subject ?? '',
        message: o.summary?.message ?? r.sns.at(-1)?.message ?? '',
      },
    });
  }
  return out;
}

/** A scenario's input: its log lines as one subscription payload (repeated: a storm), then its CloudTrail events. */
function eventsOf(s: Scenario): unknown[] {
  return [
    ...(s.lines.length ? [subscriptionPayload(Array.from({ length: s.repeat }, () => s.lines).flat())] : []),
    ...(s.cloudTrail ?? []).map(
      (f) => JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'events', f), 'utf8')) as unknown,
    ),
  ];
}

/** Runs scenarios through ingest → incident → the synthesized workflow with the real handlers. */
export async function runScenarios(
  scenarios: readonly Scenario[],
  options: {
    keepRecords?: boolean;
    agentRequest?: AgentRequest;
    /** Simulate every node, as on a machine without containerd (the demo says so per scenario). */
    simulatedNodes?: boolean;
    /** Told once the demo stack is ready (from the disk cache or synthesized). */
    onTemplate?: (t: Omit<CachedTemplate, 'template'>) => void;
    /** Told as each scenario finishes. */
    onResult?: (r: ScenarioResult, index: number) => void;
  } = {},
): Promise<ScenarioResult[]> {
  const stage = new NodeStage(options.simulatedNodes === true);
  const { template, ...served } = cachedTemplate(DEMO_CONFIG);
  options.onTemplate?.(served);
  const definition = definitionOf(template);
  const evidenceBucket = configDocumentOf(template).evidenceBucket;
  const results: ScenarioResult[] = [];
  try {
    const ctx = {
      stage,
      template,
      definition,
      evidenceBucket,
      keepRecords: options.keepRecords === true,
      agentRequest: options.agentRequest,
    };
    for (const s of scenarios) {
      const r = await runScenario(s, ctx);
      results.push(r);
      options.onResult?.(r, results.length);
    }
  } finally {
    stage.stop();
  }
  return results;
}

interface DemoContext {
  readonly stage: NodeStage;
  readonly template: ResolvedTemplate;
  readonly definition: Record<string, unknown>;
  readonly evidenceBucket: string;
  /** Keep each run's incident table rows and evidence in its result (`pod-doctor mcp --demo`). */
  readonly keepRecords: boolean;
  /** An agent asked for the runs (MCP `request_action`): every change waits for a human. */
  readonly agentRequest?: AgentRequest;
}

/** What detection made of a scenario: the executions started, the incidents recorded, its cluster. */
interface Detected {
  readonly started: Record<string, unknown>[];
  readonly incidents: DemoIncident[];
  readonly cluster?: LocalCluster;
}

/**
 * The scenario's signals through detection as deployed: its cluster's Warning events through the
 * events reader (when watched), its log lines and CloudTrail events through the ingest function.
 */
async function detect(s: Scenario, table: LocalTable, template: ResolvedTemplate): Promise<Detected> {
  const seeded = s.cluster ? seededCluster(s.cluster) : undefined;
  const started: Record<string, unknown>[] = [];
  let cluster: LocalCluster | undefined;
  if (seeded && s.eventsWatched) {
    const watched = watchedEvents(seeded);
    const local = await LocalCluster.start(seeded, { network: s.network });
    cluster = local;
    for (const e of watched) local.server.coreEvents.write(e);
    const reader = localEvents(template, table, {
      server: local.server,
      endpoint: local.endpoint,
      endpointFor: (p) => local.endpointFor(p),
      watchSeconds: 2,
    });
    await reader.invoke(`demo-${s.name}-events`);
    started.push(...reader.starts.started);
  }
  started.push(...(await ingestAll(eventsOf(s), table, `demo-${s.name}`, template)));
  const incidents = (await table.scan())
    .filter((i) => i.sk === 'OPEN')
    .sort((a, b) => Number(a.firstSeen) - Number(b.firstSeen))
    .map((i) => ({
      class: String(i.class),
      scope: String(i.scope),
      scopeValue: String(i.scopeValue),
      count: Number(i.occurrences),
      signals: orderSignals((i.signals as Iterable<string> | undefined) ?? []),
    }));
  if (!cluster && seeded && started.length) cluster = await LocalCluster.start(seeded, { network: s.network });
  return { started, incidents, cluster };
}

async function runScenario(s: Scenario, ctx: DemoContext): Promise<ScenarioResult> {
  const t0 = performance.now();
  const account = healthyAccount();
  s.account?.(account);
  // A scenario with a deployment of its own (a private cluster's VPC) runs on that template.
  const template = s.deployment ? synthesizedTemplate(s.deployment) : ctx.template;
  const definition = s.deployment ? definitionOf(template) : ctx.definition;
  const table = await freshIncidentTable(template);
  const { started, incidents, cluster } = await detect(s, table, template);
  const main = started.find((x) => x.class === s.expect.class) ?? started[0];
  const { behaviour, kind, sandboxImagePresent } = await nodeFor(s, ctx.stage, account);
  const stopKubelet =
    cluster && sandboxImagePresent ? startKubelet(cluster.server, NODE_DNS, sandboxImagePresent) : undefined;
  const r: RunResult | undefined = main
    ? await runWorkflow(ctx.agentRequest ? { ...main, agentRequest: ctx.agentRequest } : main, {
        account,
        node: behaviour,
        definition,
        template,
        table,
        modes: s.modes,
        // An agent's request waits for a human: in the demo no one answers before the deadline.
        approval: ctx.agentRequest ? 'unanswered' : s.approval,
        ...(cluster ? { kubernetes: cluster.kubernetes } : {}),
      }).finally(() => {
        stopKubelet?.();
        return cluster?.stop();
      })
    : await cluster?.stop().then(() => undefined);
  const out = (r?.output ?? {}) as WorkflowOutput;
  // Read now: the next scenario starts from a fresh table of the same name.
  const records = r
    ? { rows: await r.table.scan(), evidence: r.evidence, evidenceBucket: ctx.evidenceBucket }
    : undefined;
  const findings = (out.plan?.findings ?? []).map((f) => ({ id: f.id, status: f.status, summary: f.summary }));
  const failing = findings.filter((f) => f.status === 'fail');
  const summary = out.summary ?? {
    subject: r?.sns.at(-1)?.subject ?? '',
    message: r?.sns.at(-1)?.message ?? '',
    outcome: r ? 'workflow failed' : 'no incident',
  };
  return {
    scenario: s.name,
    title: s.title,
    class: String(main?.class ?? 'unknown'),
    expected: s.expect,
    incidents,
    signals: incidents.find((i) => i.class === main?.class && i.scopeValue === main?.scopeValue)?.signals ?? [],
    findings,
    actions: actionsOf(out),
    approval: r?.states.some((x) => APPROVAL_STATE.test(x))
      ? ctx.agentRequest
        ? 'asked, unanswered: no one approved before the deadline'
        : `${s.approval ?? 'none'}: given by the demo (scripted answer to the signed link, no human)`
      : undefined,
    outcome: summary.outcome,
    rootCause: causeInWords(failing, main?.cause),
    summary: { subject: summary.subject, message: summary.message },
    states: r?.states ?? [],
    timeline: runTimeline(r, main, summary.outcome),
    node: kind,
    ms: Math.round(performance.now() - t0),
    notices: records ? await runNotices(records, NOTICE_TIME) : [],
    clusterEvents: clusterEventsOf(cluster?.server),
    ...(ctx.keepRecords && records ? { records } : {}),
  };
}

/** The run's timeline (none without a run): its history, and the incident's firstSeen against its start. */
function runTimeline(r: RunResult | undefined, main: Record<string, unknown> | undefined, outcome: string): Timeline {
  if (!r) return { points: [] };
  const firstSeen = typeof main?.firstSeen === 'string' ? main.firstSeen : undefined;
  return timelineOf({ history: r.history, startedAt: r.startedAt, firstSeen, outcome });
}

/** The cause in words: the first failing check's finding (and how many more fail), else the log line's cause. */
function causeInWords(failing: readonly { id: string; summary: string }[], cause: unknown): string {
  if (failing.length === 0) return typeof cause === 'string' ? cause : '';
  const more = failing.length > 1 ? ` (+${failing.length - 1} more failing check${failing.length > 2 ? 's' : ''})` : '';
  return `${failing[0].summary}${more}`;
}

/** The remedies (the first, then its follow-up) and the node actions the door ran, with statuses. */
function actionsOf(out: WorkflowOutput): { id: string; status: string }[] {
  const { first, current } = remedies(out as ExecutionState);
  return [...shown(first, current), ...nodeActionsOf(out)];
}
