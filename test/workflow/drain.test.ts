import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import { isChange } from '../../local/kube-api-helpers.js';
import { KubeApiServer, type RecordedCluster, recordedCluster } from '../../local/kube-api-server.js';
import { localKubernetes } from '../../local/kubernetes.js';
import { DOCUMENTS, runWorkflow, synthesizedDefinition, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedNode } from '../../local/node-adapters.js';
import { docsRun, pidIncident, summaryOf } from './support.js';

/**
 * PID exhaustion's last step (issue 14): the approval-gated runtime restart fails verification →
 * cordon and drain through the Kubernetes API (approval-gated, behind the same gate), and the node
 * group replaces the node; pod-doctor never terminates it (node auto repair: no double action).
 */
const RECORDED_NODE = 'ip-192-168-149-143.us-east-2.compute.internal';
const server = new KubeApiServer();
let endpoint = '';
let definition: Record<string, unknown>;

beforeAll(async () => {
  endpoint = await server.start();
  definition = synthesizedDefinition();
  await warmUpRuntime();
});
afterAll(() => server.stop());
beforeEach(() => {
  // The recorded cluster with its node (and the pods on it) renamed to the incident's node.
  server.cluster = JSON.parse(JSON.stringify(recordedCluster()).replaceAll(RECORDED_NODE, NODE_DNS)) as RecordedCluster;
  server.seen.length = 0;
  delete server.writes.behaviour.evictedGoneAfterMs;
});

/** A node whose leak a runtime restart does not release: node.pids keeps failing. */
const leakingNode = () =>
  simulatedNode(
    [
      { id: 'node.pids', status: 'fail', summary: 'PID/thread use at 98% of the limit' },
      { id: 'node.zombies', status: 'warn', summary: '31240 zombie processes' },
    ],
    { healsAfterRestart: false },
  );
const account = (nodeAutoRepair: boolean) => {
  const a = healthyAccount();
  a.nodegroups[0].nodeRepairConfig = { enabled: nodeAutoRepair };
  return a;
};
const run = (o: Partial<Parameters<typeof runWorkflow>[1]> = {}) =>
  runWorkflow(pidIncident(), {
    account: account(true),
    definition,
    node: leakingNode(),
    modes: { 'pid-exhaustion': 'auto' },
    approval: 'approve',
    kubernetes: localKubernetes(server, endpoint, 1),
    ...o,
  });
const writes = () => server.seen.filter(isChange).map((s) => `${s.method} ${s.path}`);
const RESTART_FAILED =
  'collect-logs done; restart-runtime: repaired, verification failed: still failing after the repair';

describe('PID exhaustion: cordon and drain after a failed runtime restart', { timeout: 60_000 }, () => {
  it('asks for the drain, and once approved cordons, evicts (budgets honoured) and leaves replacement to node auto repair', async () => {
    const r = await run();
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    // probe, logs, re-check + restart, verification, re-check before the drain; nothing terminates the node
    expect(docsRun(r)).toEqual([
      DOCUMENTS.probeNode,
      DOCUMENTS.collectLogs,
      DOCUMENTS.probeNode,
      DOCUMENTS.restartRuntime,
      DOCUMENTS.probeNode,
      DOCUMENTS.probeNode,
    ]);
    expect(r.states).toEqual(expect.arrayContaining(['Check repair', 'Drain: request', 'Door: ask']));
    const ask = r.sns.find((m) => /approval needed: drain-node on prod-eu\//.test(m.subject ?? ''));
    expect(ask?.message).toContain('PLAN      cordon the node and evict its pods');
    expect(ask?.message).toContain('EKS node auto repair of node group ng-1 replaces the node');
    expect(writes()).toEqual([`PATCH /api/v1/nodes/${NODE_DNS}`, ...writes().filter((w) => w.endsWith('/eviction'))]);
    expect(writes().filter((w) => w.endsWith('/eviction')).length).toBeGreaterThan(2);
    const s = summaryOf(r);
    expect(s.outcome.startsWith(RESTART_FAILED)).toBe(true);
    expect(s.outcome).toMatch(
      /; drain-node: cordoned, (\d+) pod\(s\) evicted: \1 gone, 0 still terminating after \d+ s, 1 refused by a PodDisruptionBudget, 1 without a controller left in place$/,
    );
    expect(s.message).toMatch(/NEXT STEP +still on the node: default\/web-6d4cf56db6-7xw2n, default\/debug-shell/);
    expect(s.message).toContain('pod-doctor does not terminate i-0a1b2c3d4e5f60718 (no double action)');
    expect(s.message).toMatch(/drain-node: partly drained \(approved at \S+ from 203\.0\.113\.10\)/);
    // The restart's approval and the drain's, each named.
    expect(s.message).toMatch(
      /\nAPPROVAL {6}2 of 2 required approvals given: restart-runtime approved at \S+ from 203\.0\.113\.10 .*; drain-node approved at \S+ from 203\.0\.113\.10 /,
    );
    // The drain holds its own slot of the hourly cap (slots by request: logs, restart, drain).
    const held = (await r.table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder);
    expect(held.map((x) => String(x.holder).split('#').pop()).sort()).toEqual(['act', 'drain', 'followUp']);
  });

  it('approve mode: the logs, the restart and the drain each asked and each named in the e-mail', async () => {
    const r = await run({ modes: { 'pid-exhaustion': 'approve' } });
    expect(r.sns.filter((m) => /approval needed/.test(m.subject ?? '')).length).toBe(3);
    expect(summaryOf(r).message).toMatch(
      /\nAPPROVAL {6}3 of 3 required approvals given: collect-logs approved at .*; restart-runtime approved at .*; drain-node approved at /,
    );
  });

  it('says how many evicted pods are gone and how many still terminate; without node auto repair a human terminates', async () => {
    server.writes.behaviour.evictedGoneAfterMs = 60_000;
    const r = await run({ account: account(false) });
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/drain-node: cordoned, (\d+) pod\(s\) evicted: 0 gone, \1 still terminating after \d+ s/);
    expect(s.message).toContain(
      `node group ng-1 has no node auto repair: terminate ${NODE_ID} (aws autoscaling terminate-instance-in-auto-scaling-group`,
    );
    expect(s.message).toContain('pod-doctor never terminates instances');
  });

  it('a rejected drain: nothing cordoned or evicted, recorded and notified with the drain to do by hand', async () => {
    const r = await run({ drainApproval: 'reject' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(writes()).toEqual([]);
    const s = summaryOf(r);
    expect(s.outcome).toMatch(new RegExp(`^${RESTART_FAILED}.*; drain-node not run: rejected by the approver$`));
    expect(s.message).toContain(`kubectl drain ${NODE_DNS} --ignore-daemonsets`);
    expect(r.sns.at(-1)?.subject).toBe(s.subject);
  });

  it('kill switch switched on while the drain waits for approval: not drained, its slot given back', async () => {
    const r = await run({ killSwitchDuringDrainApproval: 'on' });
    expect(r.states).toContain('Drain: request');
    expect(writes()).toEqual([]);
    expect(summaryOf(r).outcome).toMatch(/; drain-node not run: blocked right before acting: kill switch is on$/);
    const held = (await r.table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder);
    expect(held.map((x) => String(x.holder).split('#').pop()).sort()).toEqual(['act', 'followUp']);
  });

  it('a node someone else already cordoned (node auto repair draining it) is left to them', async () => {
    const node = server.cluster.nodes.find((n) => (n.metadata as { name: string }).name === NODE_DNS) as {
      spec?: Record<string, unknown>;
    };
    node.spec = { ...node.spec, unschedulable: true };
    const r = await run();
    expect(writes()).toEqual([]);
    expect(summaryOf(r).outcome).toMatch(
      /; drain-node: the node was already cordoned by someone else .*nothing evicted$/,
    );
  });

  it('without cluster access the drain is recommended, never asked for', async () => {
    const r = await run({ kubernetes: undefined });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).not.toContain('Drain: request');
    expect(r.sns.map((m) => m.subject).filter((x) => /approval needed/.test(x ?? ''))).toHaveLength(1);
    const s = summaryOf(r);
    expect(s.outcome).toMatch(
      /; drain-node recommended: pod-doctor cannot reach the Kubernetes API of this cluster \(no access entry or no Kubernetes function\)$/,
    );
    expect(s.message).toMatch(/NEXT STEP +drain the node: kubectl drain ip-10-0-12-34\.eu-west-1\.compute\.internal/);
  });
});
