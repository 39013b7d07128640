import { beforeAll, describe, expect, it } from 'vitest';
import { evaluationName } from '../../lambdas/core/incident/reevaluation.js';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import { localIngest } from '../../local/ingest-runtime.js';
import { freshIncidentTable, runWorkflow } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { subscriptionEvent } from '../support/fixtures.js';
import { summaryOf } from './support.js';

/**
 * A forged line, then the real failure, through the deployed ingest code and the synthesized workflow
 * (every Task's real handler): the first run finds the node healthy and changes nothing; the real
 * failure's lines, in the same incident window, start a new evaluation that repairs the node.
 */
const GROUP = '/aws/containerinsights/prod-eu/dataplane';
const T0 = Date.parse('2026-11-29T10:00:00Z');
const PAUSE = 'localhost/kubernetes/pause';
const line = (at: string) =>
  JSON.stringify({
    hostname: NODE_DNS,
    ec2_instance_id: NODE_ID,
    systemd_unit: 'kubelet.service',
    message: `E1129 ${at}    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = NotFound desc = failed to get sandbox image \\"${PAUSE}\\": failed to pull image \\"${PAUSE}\\": not found" pod="default/web-7d9c8-x2k4q"`,
  });

let template: ResolvedTemplate;
beforeAll(() => {
  template = synthesizedTemplate();
});

describe('a forged line cannot suppress detection (through the synthesized workflow)', () => {
  it('the run of a forged line changes nothing; the real failure that follows is evaluated again and repaired', async () => {
    const table = await freshIncidentTable(template);
    const clock = { now: T0 + 60_000 };
    const ingest = localIngest(template, table, {
      config: { logGroupClusters: { [GROUP]: 'prod-eu' }, accountScope: 'account' },
      now: () => clock.now,
    });
    let broken = false;
    const node = simulatedPauseNode({ broken: () => broken });
    // Anyone who can write a log line writes one for a healthy node.
    await ingest.invoke(subscriptionEvent([line('10:00:01.000000')], { logGroup: GROUP, start: T0 }), 'forged');
    const [forged] = ingest.started;
    const first = await runWorkflow(forged, { account: healthyAccount(), node, template, table, now: T0 + 90_000 });
    expect(first.status).toBe('SUCCEEDED');
    expect(summaryOf(first).outcome).not.toMatch(/repaired/);
    expect(first.commands.map((c) => c.document)).not.toContain('pod-doctor-repairPauseImage');
    const row = async () => (await table.scan()).find((r) => r.sk === 'OPEN');
    expect(await row()).toMatchObject({ lastResult: 'not-acted', runs: 1 });

    // Six minutes later the node really breaks: same node, class and window.
    broken = true;
    clock.now = T0 + 7 * 60_000;
    const real = [line('10:06:01.000000'), line('10:06:02.000000'), line('10:06:03.000000')];
    const out = await ingest.invoke(subscriptionEvent(real, { logGroup: GROUP, start: T0 + 6 * 60_000 }), 'real');
    expect(out.reevaluated).toEqual([evaluationName(String(forged.incidentId), 2)]);
    const second = await runWorkflow(ingest.started[1], {
      account: healthyAccount(),
      node,
      template,
      table,
      now: T0 + 7 * 60_000 + 30_000,
      executionName: evaluationName(String(forged.incidentId), 2),
    });
    expect(second.status).toBe('SUCCEEDED');
    expect(summaryOf(second).outcome).toMatch(/^repaired and verified/);
    expect(await row()).toMatchObject({ lastResult: 'verified', runs: 2 });

    // After a verified repair, more lines only join.
    clock.now = T0 + 14 * 60_000;
    const after = await ingest.invoke(
      subscriptionEvent([line('10:13:01.000000')], { logGroup: GROUP, start: T0 + 13 * 60_000 }),
      'after',
    );
    expect(after.reevaluated).toEqual([]);
  }, 300_000);
});
