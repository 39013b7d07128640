import { beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import {
  DOCUMENTS,
  freshIncidentTable,
  type LocalNodeBehaviour,
  runWorkflow,
  synthesizedDefinition,
  warmUpRuntime,
} from '../../local/local-workflow.js';
import { simulatedNode, simulatedPauseNode } from '../../local/node-adapters.js';
import { docsRun, incident, pidIncident, summaryOf } from './support.js';

/** The Act phase on the synthesized state machine: follow-up actions (issue 10, finding 10). */
let definition: Record<string, unknown>;
beforeAll(async () => {
  definition = synthesizedDefinition();
  await warmUpRuntime();
});
const run = (i: Record<string, unknown>, o: Partial<Parameters<typeof runWorkflow>[1]> = {}) =>
  runWorkflow(i, { account: healthyAccount(), definition, node: pidNode(), modes: { 'pid-exhaustion': 'auto' }, ...o });

/** A node out of PIDs: the probe's node.pids fails until the runtime is restarted. */
const pidNode = () =>
  simulatedNode([
    {
      id: 'node.pids',
      status: 'fail',
      summary: "PID/thread use at 98% of the limit: new processes fail with 'resource temporarily unavailable'",
    },
    { id: 'node.zombies', status: 'warn', summary: '31240 zombie processes' },
  ]);

describe('PID exhaustion: logs first, then the approval-gated runtime restart (finding 10)', {
  timeout: 30_000,
}, () => {
  it('collects logs automatically, asks for the restart, and once approved restarts the runtime and verifies', async () => {
    const r = await run(pidIncident(), { approval: 'approve' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    // probe, logs, [approval], probe again before acting (the gate reads it), restart, verification probe
    expect(docsRun(r)).toEqual([
      DOCUMENTS.probeNode,
      DOCUMENTS.collectLogs,
      DOCUMENTS.probeNode,
      DOCUMENTS.restartRuntime,
      DOCUMENTS.probeNode,
    ]);
    expect(r.commands[3].parameters).toEqual({ Target: ['both'], DryRun: ['false'] });
    const request = r.sns[0];
    expect(request.subject).toMatch(/^\[pod-doctor\] approval needed: restart-runtime on prod-eu\//);
    expect(request.message).toContain('PLAN      restart kubelet and containerd to release leaked threads');
    const s = summaryOf(r);
    expect(s.outcome).toBe('collect-logs done; restart-runtime: repaired and verified');
    expect(s.message).toMatch(/collect-logs: Success \(SSM command 00000002-/);
    expect(s.message).toMatch(/restart-runtime: Success \(SSM command 00000004-/);
    expect(r.sns.map((m) => m.subject)).toEqual([request.subject, s.subject]);
    const actions = (await r.table.scan()).filter((x) => String(x.sk).startsWith('ACTION#'));
    expect(actions.map((x) => x.action).sort()).toEqual(['collect-logs', 'restart-runtime']);
  });

  it('a rejected restart: logs collected, no restart, recorded and notified', async () => {
    const r = await run(pidIncident(), { approval: 'reject' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.collectLogs]);
    const s = summaryOf(r);
    expect(s.outcome).toBe('collect-logs done; restart-runtime not run: rejected by the approver');
    expect(r.sns.at(-1)?.subject).toBe(s.subject);
    expect((await r.table.scan()).find((x) => String(x.sk).startsWith('RUN#'))).toMatchObject({
      outcome: s.outcome,
    });
  });

  it('no answer before the deadline: no restart, recorded and notified', async () => {
    const r = await run(pidIncident(), { approval: 'timeout' });
    expect(r.states).toContain('Door: no answer');
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.collectLogs]);
    expect(summaryOf(r).outcome).toBe(
      'collect-logs done; restart-runtime not run: no answer before the approval deadline',
    );
    expect(r.sns.at(-1)?.subject).toBe(summaryOf(r).subject);
  });

  it('observe mode: neither logs nor restart, both recommended', async () => {
    const r = await run(pidIncident(), { modes: { 'pid-exhaustion': 'observe' }, approval: 'approve' });
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode]);
    expect(summaryOf(r).message).toContain('restart-runtime (disruptive): recommend');
  });
});

/** A pause-image node whose image is back by the second probe (someone re-imported it meanwhile). */
function healingNode(): LocalNodeBehaviour {
  const missing = simulatedPauseNode();
  const healthy = simulatedNode([]);
  let probes = 0;
  return {
    managed: true,
    run: (doc, params, n) =>
      doc === DOCUMENTS.probeNode && ++probes > 1 ? healthy.run(doc, params, n) : missing.run(doc, params, n),
  };
}

/** A pause-image node SSM loses after its first probe (agent stopped, instance stopping). */
function unreachableAfterFirstProbe(): LocalNodeBehaviour {
  const missing = simulatedPauseNode();
  let probes = 0;
  return {
    get managed() {
      return probes < 1;
    },
    run: (doc, params, n) => {
      if (doc === DOCUMENTS.probeNode) probes++;
      return missing.run(doc, params, n);
    },
  };
}

describe('one gate right before every Act (issue 12, finding 5)', { timeout: 30_000 }, () => {
  it('kill switch switched on during the approval wait: the restart is not sent; recorded and notified', async () => {
    const r = await run(pidIncident(), { approval: 'approve', killSwitchDuringApproval: 'on' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(docsRun(r)).not.toContain(DOCUMENTS.restartRuntime);
    expect(r.states).toContain('Follow-up: request');
    expect(summaryOf(r).outcome).toBe(
      'collect-logs done; restart-runtime not run: blocked right before acting: kill switch is on',
    );
    expect(r.sns.at(-1)?.subject).toBe(summaryOf(r).subject);
    // Nothing is reserved for the action that did not run: only the logs' slot (the plan's first action) is held.
    const slots = (await r.table.scan()).filter((x) => String(x.pk).startsWith('CAP#') && x.holder);
    expect(slots.map((x) => String(x.holder).split('#').pop())).toEqual(['act']);
  });

  it('an approved pause repair is not sent when the kill switch went on (or became unreadable) meanwhile', async () => {
    for (const ks of ['on', 'unreadable'] as const) {
      const r = await run(incident(), {
        node: simulatedPauseNode(),
        modes: { 'sandbox-image': 'approve' },
        approval: 'approve',
        killSwitchDuringApproval: ks,
      });
      // The kill switch is the door's first check: the node is not even probed again.
      expect(docsRun(r), ks).toEqual([DOCUMENTS.probeNode]);
      expect(summaryOf(r).outcome, ks).toMatch(
        /^no action: blocked right before acting: kill switch (is on|unreadable)/,
      );
    }
  });

  it('a node that stopped failing during the approval wait is not repaired', async () => {
    const r = await run(incident(), {
      node: healingNode(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'approve',
    });
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.probeNode]);
    expect(summaryOf(r).outcome).toBe(
      'no action: blocked right before acting: the node no longer fails: pause image present and pinned',
    );
  });

  it('a node the re-check cannot reach is not acted on blind', async () => {
    const r = await run(incident(), {
      node: unreachableAfterFirstProbe(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'approve',
    });
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode]);
    expect(summaryOf(r).outcome).toMatch(
      /^no action: blocked right before acting: cannot tell whether the node still fails/,
    );
  });
});

describe('the hourly cap holds under racing executions (issue 12, finding 7)', { timeout: 120_000 }, () => {
  /** The recorded account with `n` nodes in a node group of 20 (ids and names derived from the first). */
  const accountWithNodes = (n: number) => {
    const account = healthyAccount();
    account.nodegroups[0].scalingConfig = { minSize: 3, maxSize: 30, desiredSize: 20 };
    const [first] = account.instances;
    account.instances = Array.from({ length: n }, (_, k) => ({
      ...first,
      InstanceId: `i-0a1b2c3d4e5f607${String(k).padStart(2, '0')}`,
      PrivateDnsName: `ip-10-0-13-${k}.eu-west-1.compute.internal`,
    }));
    return account;
  };

  it('8 concurrent pause-image incidents on 8 nodes with a cap of 5: exactly 5 repairs are sent', async () => {
    const account = accountWithNodes(8);
    const table = await freshIncidentTable();
    const runs = await Promise.all(
      account.instances.map((x, k) =>
        runWorkflow(
          incident({
            incidentId: `0f3a9c2e5b7d1a4${k}-1795946400`,
            incidentKey: `prod-eu|node:${x.InstanceId}|sandbox-image`,
            scopeValue: x.InstanceId,
            entities: { instanceId: x.InstanceId, node: x.PrivateDnsName },
          }),
          {
            account,
            definition,
            table,
            node: simulatedPauseNode(),
            // 8 of 20 nodes (40%) stay under a 50% breaker: this test is about the cap alone.
            limits: { maxNodeActionsPerClusterPerHour: 5, maxNodeGroupShareAffected: 0.5 },
          },
        ),
      ),
    );
    for (const r of runs) expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    // They raced for real: every one saw a free cap when it decided (the count read at open says 0).
    expect(runs.map((r) => (r.output.plan as { decision: string }).decision)).toEqual(Array(8).fill('act'));
    const repaired = runs.filter((r) => docsRun(r).includes(DOCUMENTS.repairPauseImage));
    expect(repaired).toHaveLength(5);
    for (const r of runs.filter((x) => !repaired.includes(x)))
      expect(summaryOf(r).outcome).toMatch(/^no action: blocked right before acting: hourly cap: 5 node actions/);
    const held = (await table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder);
    expect(held).toHaveLength(5);
  });

  it('a slot is given back when the command never reached the node (not managed by SSM)', async () => {
    const table = await freshIncidentTable();
    const r = await run(incident(), {
      node: unreachableAfterFirstProbe(),
      table,
      limits: { maxNodeActionsPerClusterPerHour: 1 },
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Act: request');
    expect(summaryOf(r).outcome).toBe('no action: node not reachable through SSM');
    const rows = await table.scan();
    expect(rows.filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder)).toEqual([]);
    // The cooldown it claimed is given back too: the next incident may act.
    expect(rows.find((x) => x.pk === `NODE#${NODE_ID}` && x.sk === 'COOLDOWN#sandbox-image')).toMatchObject({ at: 0 });
  });
});

describe('breaker keyed by resolved instance id; the approver in the summary (issue 12)', { timeout: 60_000 }, () => {
  it('one node named by instance id in one incident and by DNS name in another counts once', async () => {
    const table = await freshIncidentTable();
    const byId = await run(incident(), { node: simulatedPauseNode(), table });
    expect(summaryOf(byId).outcome).toBe('repaired and verified');
    const byName = await run(
      incident({
        scopeValue: NODE_DNS,
        incidentKey: `prod-eu|node:${NODE_DNS}|sandbox-image`,
        entities: { node: NODE_DNS },
      }),
      { node: simulatedPauseNode(), table, now: Date.parse('2026-11-29T10:20:00Z') },
    );
    const active = (await table.scan()).filter((x) => String(x.pk) === 'ACTIVE#prod-eu#sandbox-image');
    expect(active.map((x) => x.sk)).toEqual([`NODE#${NODE_ID}`]);
    // 1 of 3 nodes: no breaker (counted by name and by id it was 2 of 3, 67%); the cooldown holds instead.
    expect(summaryOf(byName).message).not.toContain('breaker');
    expect(summaryOf(byName).message).toMatch(/cooldown: pod-doctor acted on this node for sandbox-image/);
  });

  it('summary.md and the e-mail name who approved and when (source IP, user agent)', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'approve',
    });
    expect(summaryOf(r).outcome).toBe('repaired and verified');
    const md = [...r.evidence.entries()].find(([k]) => k.endsWith('/summary.md'))?.[1] ?? '';
    expect(md).toMatch(
      /- \*\*Approval:\*\* approved at 2026-11-29T\S+ from `203\.0\.113\.10` \(user agent `Mozilla\/5\.0 \(approver\)`\)/,
    );
    expect(summaryOf(r).message).toMatch(
      /APPROVAL +approved at \S+ from 203\.0\.113\.10 \(user agent Mozilla\/5\.0 \(approver\)\)/,
    );
    const json = JSON.parse([...r.evidence.entries()].find(([k]) => k.endsWith('/summary.json'))?.[1] ?? '{}');
    expect(json.approval).toMatchObject({ approved: true, decidedBy: { sourceIp: '203.0.113.10' } });
  });
});
