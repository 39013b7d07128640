import { beforeAll, describe, expect, it } from 'vitest';
import { closeIncidentRun } from '../../lambdas/aws/ingest/incident-runs.js';
import type { IngestLimits } from '../../lambdas/core/incident/ingest-limits.js';
import { evaluationName, type RunResult } from '../../lambdas/core/incident/reevaluation.js';
import type { LocalTable } from '../../local/dynamo.js';
import { type LocalIngest, localIngest } from '../../local/ingest-runtime.js';
import { freshIncidentTable } from '../../local/local-workflow.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { subscriptionEvent } from '../support/fixtures.js';

/**
 * What log lines (anyone who can write one) can make pod-doctor do, through the deployed ingest code
 * (its role decides every call, dynalite, Step Functions' StartExecution rules, the evidence bucket,
 * the topic): bounded per delivery and per cluster and hour, with what was dropped kept, counted and
 * noticed; and a forged line that opened an incident whose run did nothing does not hide the real
 * failure that follows.
 */
const GROUP = '/aws/containerinsights/prod-eu/dataplane';
const CONFIG = { logGroupClusters: { [GROUP]: 'prod-eu' }, accountScope: 'account' };
const T0 = Date.parse('2026-11-29T10:00:00Z');
const NODE = { hostname: 'ip-10-0-12-34.eu-west-1.compute.internal', ec2_instance_id: 'i-0123456789abcdef0' };
const PAUSE = '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10';
const sandboxLine = JSON.stringify({
  ...NODE,
  systemd_unit: 'kubelet.service',
  message: `E1129 10:00:01.000000    3412 kuberuntime_sandbox.go:72] "Failed to create sandbox for pod" err="rpc error: code = Unknown desc = failed to get sandbox image \\"${PAUSE}\\": failed to pull image \\"${PAUSE}\\": 401 Unauthorized"`,
});
const imageLine = (n: number) => {
  const image = `docker.io/flood/img-${n}:v1`;
  return JSON.stringify({
    ...NODE,
    systemd_unit: 'kubelet.service',
    message: `E1129 10:00:01.000000    3412 remote_image.go:180] "Failed to pull image" err="rpc error: code = NotFound desc = failed to pull and unpack image \\"${image}\\": failed to resolve reference \\"${image}\\": ${image}: not found" image="${image}"`,
  });
};

let template: ResolvedTemplate;
beforeAll(() => {
  template = synthesizedTemplate();
});

async function setUp(limits?: Partial<IngestLimits>, from = template) {
  const table = await freshIncidentTable(from);
  const clock = { now: T0 + 60_000 };
  const ingest = localIngest(from, table, { config: CONFIG, now: () => clock.now, limits });
  return { table, clock, ingest };
}

const deliver = (ingest: LocalIngest, lines: readonly string[], id: string, start = T0) =>
  ingest.invoke(subscriptionEvent(lines, { logGroup: GROUP, start }), id);

/** What Summarize records when an execution ends (the workflow's last step). */
async function runEnded(table: LocalTable, started: Record<string, unknown>, execution: string, result: RunResult) {
  await closeIncidentRun(table.client, table.name, {
    incidentKey: String(started.incidentKey),
    incidentId: String(started.incidentId),
    execution,
    result,
    now: Date.now(),
  });
}

describe('limits on what one delivery and one cluster-hour can open, start and mail', () => {
  it('one delivery of 2,000 distinct images opens and starts at most the per-delivery limit; the rest is kept, counted and noticed once', async () => {
    const { ingest } = await setUp();
    const out = await deliver(
      ingest,
      Array.from({ length: 2000 }, (_, n) => imageLine(n)),
      'flood',
    );
    expect(out.incidentsOpened).toHaveLength(20);
    expect(ingest.started).toHaveLength(20);
    expect(out.incidentsDropped).toBe(1980);
    const kept = [...ingest.objects].filter(([k]) => k.startsWith('dropped/'));
    expect(kept).toHaveLength(1);
    expect(kept[0][1].trim().split('\n')).toHaveLength(1980);
    expect(JSON.parse(kept[0][1].split('\n')[0])).toMatchObject({ reason: 'not evaluated: limit delivery' });
    expect(ingest.notices).toHaveLength(1);
    expect(ingest.notices[0].subject).toBe('[pod-doctor] limits reached on prod-eu: 1980 candidate(s) not evaluated');
    expect(ingest.notices[0].message).toContain('image-not-found: 1980 candidate(s), 1980 line(s)');
    expect(ingest.notices[0].message).toContain(`KEPT        ${kept[0][0]}`);
  }, 600_000);

  it("the cluster's hour stops at its configured limits across deliveries, with one notice for the hour", async () => {
    // Limits from the cdk.json configuration, through the configuration document the function reads.
    const ingestLimits = {
      maxIncidentsPerDelivery: 5,
      maxIncidentsPerClusterPerHour: 8,
      maxExecutionsPerClusterPerHour: 6,
    };
    const { ingest, table } = await setUp(undefined, synthesizedTemplate({ ...LOCAL_CONFIG, ingestLimits }));
    const outs = [];
    for (let d = 0; d < 3; d++)
      outs.push(
        await deliver(
          ingest,
          Array.from({ length: 10 }, (_, n) => imageLine(d * 100 + n)),
          `d${d}`,
        ),
      );
    expect(outs.map((o) => o.incidentsOpened.length)).toEqual([5, 3, 0]);
    expect(ingest.started).toHaveLength(6);
    // The eighth incident is open without an execution: waiting for budget, counted and kept.
    expect(outs.map((o) => o.executionsDeferred)).toEqual([0, 2, 0]);
    expect(outs.map((o) => o.incidentsDropped)).toEqual([5, 7, 10]);
    expect(ingest.notices).toHaveLength(1);
    expect(ingest.notices[0].message).toContain(
      '5 new incidents and executions per delivery and rank; per cluster and hour 8 incidents, 6 executions (AWS and node rank each)',
    );
    const notice = (await table.scan()).find((r) => String(r.sk).startsWith('NOTICE#'));
    expect(notice).toMatchObject({ pk: 'BUDGET#prod-eu', dropped: 5 + 9 + 10 });
  }, 300_000);

  it('candidates are taken most lines first: a flood of one-line candidates does not crowd out a real failure', async () => {
    const { ingest } = await setUp({ maxIncidentsPerDelivery: 3 });
    const real = Array.from({ length: 8 }, () => sandboxLine);
    await deliver(ingest, [...Array.from({ length: 50 }, (_, n) => imageLine(n)), ...real], 'mixed');
    expect(ingest.started.map((i) => i.class)).toContain('sandbox-image');
    expect(ingest.started).toHaveLength(3);
  });
});

describe('a forged line cannot suppress detection of the failure that follows', () => {
  it('new lines for an open incident whose run did not act are evaluated again, with their own evidence', async () => {
    const { ingest, table, clock } = await setUp();
    await deliver(ingest, [sandboxLine], 'forged');
    const [first] = ingest.started;
    expect(first).toMatchObject({ class: 'sandbox-image', scopeValue: NODE.ec2_instance_id });
    await runEnded(table, first, String(first.incidentId), 'not-acted');
    // The real failure starts six minutes later: same node, same class, same window.
    clock.now = T0 + 7 * 60_000;
    const real = await deliver(ingest, [sandboxLine, sandboxLine, sandboxLine], 'real', T0 + 6 * 60_000);
    expect(real.incidentsJoined).toEqual([first.incidentId]);
    expect(real.reevaluated).toEqual([`${first.incidentId}-e2`]);
    expect(ingest.started[1]).toMatchObject({ incidentId: first.incidentId, evaluation: 2 });
    const row = (await table.scan()).find((r) => r.sk === 'OPEN');
    expect(row).toMatchObject({ runs: 2, executionArn: expect.stringMatching(/-e2$/) });
  });

  it('while the first run is going, and after a verified repair, new lines only join', async () => {
    const { ingest, table, clock } = await setUp();
    await deliver(ingest, [sandboxLine], 'first');
    const [first] = ingest.started;
    clock.now = T0 + 7 * 60_000;
    const running = await deliver(ingest, [sandboxLine], 'running', T0 + 6 * 60_000);
    expect(running.reevaluated).toEqual([]);
    await runEnded(table, first, String(first.incidentId), 'verified');
    clock.now = T0 + 14 * 60_000;
    const after = await deliver(ingest, [sandboxLine], 'after', T0 + 13 * 60_000);
    expect(after.reevaluated).toEqual([]);
    expect(ingest.started).toHaveLength(1);
  });

  it('deliveries racing on one incident start one re-evaluation; re-evaluations stop at their limit', async () => {
    const { ingest, table, clock } = await setUp({ maxReevaluationsPerIncident: 2, reevaluateAfterMinutes: 5 });
    await deliver(ingest, [sandboxLine], 'first');
    for (let round = 1; round <= 3; round++) {
      const last = ingest.started.at(-1) as Record<string, unknown>;
      await runEnded(table, last, evaluationName(String(last.incidentId), round), 'acted');
      clock.now = T0 + round * 6 * 60_000 + 60_000;
      const at = T0 + round * 6 * 60_000;
      await Promise.all([
        deliver(ingest, [sandboxLine], `a${round}`, at),
        deliver(ingest, [sandboxLine, sandboxLine], `b${round}`, at),
      ]);
    }
    // First evaluation, then two re-evaluations (one per round however many deliveries raced), then none.
    expect(ingest.started.map((i) => i.evaluation ?? 1)).toEqual([1, 2, 3]);
  });
});
