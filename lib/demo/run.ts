import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { aggregate, type IncidentCandidate } from '../../lambdas/core/incidents.js';
import { readEvent } from '../../lambdas/core/ingest.js';
import { PROJECT_ROOT } from '../constructs/paths.js';
import { AL2023_PAUSE, LocalNode, missingLocalNodePackages, REGISTRY_TOKEN, type RunResult } from './local-node.js';
import type { Scenario } from './scenarios.js';

export interface ActionRecord {
  readonly id: string;
  readonly status: string;
  readonly detail: string;
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly title: string;
  readonly class: string;
  readonly expectedClass: string;
  readonly incidents: readonly IncidentCandidate[];
  readonly recordsRead: number;
  readonly findings: readonly { id: string; status: string; summary: string }[];
  readonly actions: readonly ActionRecord[];
  readonly outcome: string;
  readonly ms: number;
}

const CONFIG = { logGroupClusters: { '/aws/containerinsights/prod-eu/dataplane': 'prod-eu' }, accountScope: 'account' };

function subscriptionPayload(lines: readonly string[], start: number) {
  const batch = {
    messageType: 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: '/aws/containerinsights/prod-eu/dataplane',
    logStream: 'ip-10-0-12-34.eu-west-1.compute.internal-dataplane',
    subscriptionFilters: ['pod-doctor'],
    logEvents: lines.map((message, i) => ({ id: String(i), timestamp: start + i * 250, message })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(batch))).toString('base64') } };
}

/** Node-side part of a scenario on a real local containerd + registry. */
class NodeStage {
  private node?: LocalNode;
  readonly unavailable?: string;

  constructor() {
    const missing = missingLocalNodePackages();
    if (missing.length > 0) this.unavailable = `needs ${missing.join(', ')} (apt-get install -y ${missing.join(' ')})`;
    else if (process.getuid?.() !== 0) this.unavailable = 'containerd needs root';
  }

  async get(): Promise<LocalNode> {
    this.node ??= await new LocalNode().start();
    return this.node;
  }

  stop(): void {
    this.node?.stop();
  }
}

function probeFindings(r: RunResult): { id: string; status: string; summary: string }[] {
  const f = (r.json.findings as { id: string; status: string; summary: string }[] | undefined) ?? [];
  return f.filter(
    (x) => x.id.startsWith('node.sandbox-image') || x.id === 'node.pause-tarball' || x.id === 'node.registry-reachable',
  );
}

async function runNodeAction(
  s: Scenario,
  stage: NodeStage,
): Promise<Pick<ScenarioResult, 'findings' | 'actions' | 'outcome'>> {
  if (s.nodeAction === 'none') return { findings: [], actions: [], outcome: 'diagnosed' };
  if (stage.unavailable) {
    return {
      findings: [],
      actions: [{ id: 'repair-pause-image', status: 'not-run', detail: `local node ${stage.unavailable}` }],
      outcome: 'not-run',
    };
  }
  const node = await stage.get();
  const al2023 = s.nodeAction === 'repair-al2023';
  const image = al2023 ? AL2023_PAUSE : node.registryImage;
  node.removeImage(AL2023_PAUSE, node.registryImage);
  const env = {
    CONTAINERD_CONFIG: node.writeConfig(`${s.name}.toml`, image, al2023 ? 'containerd2' : 'containerd1'),
    PAUSE_TAR: al2023 ? node.pauseTar : join(node.dir, 'no-pause.tar'),
    ECR_PASSWORD_CMD: `echo ${REGISTRY_TOKEN}`,
    CTR_PULL_ARGS: '--plain-http',
    KUBELET_ARGS: `--pod-infra-container-image=${image}`,
  };
  const endpoint = ['--endpoint', `127.0.0.1:${node.registryPort}`];
  const before = node.run('probe-node.sh', endpoint, env);
  const repair = node.run('repair-pause-image.sh', [], env);
  const after = node.run('probe-node.sh', endpoint, env);
  const verified = probeFindings(after).every((f) => f.status === 'pass');
  return {
    findings: [
      ...probeFindings(before).map((f) => ({ ...f, id: `${f.id} (before)` })),
      ...probeFindings(after).map((f) => ({ ...f, id: `${f.id} (after)` })),
    ],
    actions: [
      { id: 'probe-node', status: before.code === 0 ? 'done' : 'failed', detail: 'read-only probe before acting' },
      {
        id: 'repair-pause-image',
        status: String(repair.json.status ?? 'failed'),
        detail: `method ${String(repair.json.method)}: ${String(repair.json.message ?? repair.stderr.slice(-200))}`,
      },
      { id: 'verify (probe-node)', status: verified ? 'passed' : 'failed', detail: 'sandbox image present and pinned' },
    ],
    outcome: repair.json.status === 'repaired' && verified ? 'repaired and verified' : 'repair failed',
  };
}

export async function runScenarios(scenarios: readonly Scenario[]): Promise<ScenarioResult[]> {
  const stage = new NodeStage();
  const results: ScenarioResult[] = [];
  try {
    for (const s of scenarios) {
      const t0 = performance.now();
      const start = Date.parse('2026-11-29T10:00:00Z');
      const lines = Array.from({ length: s.repeat }, () => s.lines).flat();
      const reads = [
        ...(lines.length ? [readEvent(subscriptionPayload(lines, start), CONFIG, start)] : []),
        ...(s.cloudTrail ?? []).map((f) =>
          readEvent(
            JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'events', f), 'utf8')),
            CONFIG,
            start,
          ),
        ),
      ];
      const incidents = aggregate(reads.flatMap((r) => r.occurrences));
      const main = incidents.find((i) => i.class === s.expectedClass) ?? incidents[0];
      const node = await runNodeAction(s, stage);
      results.push({
        scenario: s.name,
        title: s.title,
        class: main?.class ?? 'unknown',
        expectedClass: s.expectedClass,
        incidents,
        recordsRead: reads.reduce((n, r) => n + r.stats.received, 0),
        ...node,
        ms: Math.round(performance.now() - t0),
      });
    }
  } finally {
    stage.stop();
  }
  return results;
}

/** The summary a user would paste into an incident channel. */
export function renderSummary(r: ScenarioResult): string {
  const out = [`━━ ${r.scenario} — ${r.title}`];
  for (const i of r.incidents) {
    out.push(
      `  incident  ${i.class} on ${i.cluster} (${i.scope} ${i.scopeValue}) — ${i.count} occurrence(s) folded into one`,
      `  cause     ${i.cause}`,
    );
    if (i.pods.length) out.push(`  pods      ${i.pods.join(', ')}`);
    const e = i.entities;
    const where = [e.node && `node ${e.node}`, e.instanceId, e.image && `image ${e.image}`, e.subnetId, e.eniId].filter(
      Boolean,
    );
    if (where.length) out.push(`  where     ${where.join(' · ')}`);
    out.push(`  evidence  ${i.samples[0].slice(0, 220)}${i.samples[0].length > 220 ? '…' : ''}`);
  }
  for (const f of r.findings) out.push(`  finding   ${f.status.padEnd(4)} ${f.id}: ${f.summary}`);
  for (const a of r.actions) out.push(`  action    ${a.id}: ${a.status} — ${a.detail}`);
  out.push(`  outcome   ${r.outcome}`);
  return out.join('\n');
}

export function renderTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((r) => [
    r.scenario,
    r.class,
    String(r.incidents.reduce((n, i) => n + i.count, 0)),
    r.actions.find((a) => a.id === 'repair-pause-image')?.status ?? '—',
    r.outcome,
    `${r.ms} ms`,
  ]);
  const head = ['scenario', 'class', 'events', 'node action', 'outcome', 'time'];
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]) => cells.map((x, c) => x.padEnd(widths[c])).join('  ');
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
