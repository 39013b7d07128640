import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount } from '../../local/account-snapshot.js';
import type { RecordedCluster } from '../../local/kube-api-server.js';
import type { ControllerBehaviour } from '../../local/kube-api-writes.js';
import { clusterOnNode, LocalCluster } from '../../local/local-cluster.js';
import { type RunOptions, runWorkflow, synthesizedDefinition, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { onSlot } from '../../local/task-faults.js';
import { incident, recordedPods, summaryOf } from './support.js';

/**
 * Issue 13's last action through the synthesized workflow: the pause repair is verified on the node,
 * but the watched pods stay stuck (kubelet backs off) → evict those a controller owns (Eviction API,
 * local HTTPS API server with the shipped RBAC) → watch that the controllers' new pods run.
 */
let definition: Record<string, unknown>;
beforeAll(async () => {
  definition = synthesizedDefinition();
  await warmUpRuntime();
});

let cluster: LocalCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** The recorded cluster on the incident's node; its stuck pods never start by themselves. */
async function start(behaviour: ControllerBehaviour, edit: (c: RecordedCluster) => void = () => {}) {
  const recorded = clusterOnNode();
  edit(recorded);
  cluster = await LocalCluster.start(recorded, { behaviour: { awsNodeReadyAfterMs: 200, ...behaviour } });
  return cluster;
}

const run = (c: LocalCluster, o: Partial<RunOptions> = {}) =>
  runWorkflow(incident({ pods: recordedPods() }), {
    account: healthyAccount(),
    definition,
    node: simulatedPauseNode(),
    kubernetes: c.kubernetes,
    remedies: { 'sandbox-image': 'auto' },
    ...o,
  });

const evictions = (c: LocalCluster) => c.writes().filter((w) => w.endsWith('/eviction'));
const BARE = 'default/nginx-55d75d5f56-qrqmp';

describe('evict the pods that stay stuck after a verified pause repair', { timeout: 90_000 }, () => {
  it('evicts the controller-owned stuck pods; the re-created pods run and the verdict names them and the time', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toEqual(expect.arrayContaining(['Watch pods start', 'Evict: request', 'Pods evicted?']));
    expect(r.states).toContain('Watch recreated pods');
    expect(evictions(c)).toContain(`POST /api/v1/namespaces/default/pods/nginx-7cdbb5f49f-2p6p2/eviction`);
    const s = summaryOf(r);
    expect(s.outcome).toMatch(
      /^repaired and verified after eviction: evict-stuck-pods: evicted .*default\/nginx-7cdbb5f49f-2p6p2/,
    );
    // A ReplicaSet's new pod has a new name; a StatefulSet's keeps it.
    expect(s.message).toMatch(
      /default\/nginx-7cdbb5f49f-2p6p2 → default\/nginx-7cdbb5f49f-[a-z0-9]{5} Running after [\d.]+ s/,
    );
    expect(s.message).toMatch(/team-a\/worker-0 → team-a\/worker-0 Running after [\d.]+ s/);
    expect(s.message).toMatch(/still not running after \d+ s: default\/nginx-7cdbb5f49f-2p6p2/);
    expect(r.sns.length).toBeGreaterThan(0);
    // The eviction keeps the slot of the hourly cap the door reserved (it acted).
    const rows = await r.table.scan();
    expect(rows.some((x) => String(x.sk).startsWith('SLOT') && String(x.holder).endsWith('#evict'))).toBe(true);
  });

  it('says so and notifies when the re-created pods stay stuck: not verified', async () => {
    const c = await start({ recreateEvicted: {} });
    const r = await run(c);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Watch recreated pods');
    expect(evictions(c).length).toBeGreaterThan(0);
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/^repaired, verification failed: .*; evict-stuck-pods: evicted .*/);
    expect(s.outcome).toMatch(
      /default\/nginx-7cdbb5f49f-2p6p2 → default\/nginx-7cdbb5f49f-[a-z0-9]{5} not Running after [\d.]+ s/,
    );
    expect(s.message).toMatch(/look at the pods that still do not run/);
    expect(r.sns.map((m) => m.subject).join('\n')).toMatch(/prod-eu/);
  });

  it('never evicts a pod no controller owns, and says so in the record', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } }, (rc) => {
      const bare = rc.pods.find((p) => (p.metadata as { name: string }).name === BARE.split('/')[1]);
      if (!bare) throw new Error(`${BARE} is not in the recorded cluster`);
      delete (bare.metadata as { ownerReferences?: unknown }).ownerReferences;
    });
    const r = await run(c);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(evictions(c)).not.toContain(`POST /api/v1/namespaces/default/pods/nginx-55d75d5f56-qrqmp/eviction`);
    expect(evictions(c)).toContain(`POST /api/v1/namespaces/default/pods/nginx-7cdbb5f49f-2p6p2/eviction`);
    const s = summaryOf(r);
    expect(s.message).toContain(`not evicted: ${BARE}: no controller would re-create it`);
    // The bare pod stays stuck: the incident is not verified.
    expect(s.outcome).toMatch(new RegExp(`left stuck: ${BARE}`));
    expect(s.outcome).not.toMatch(/^repaired and verified/);
  });

  const exhaustedBudget = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'api', namespace: 'team-a', uid: 'pdb-api' },
    spec: { minAvailable: 3, selector: { matchLabels: { app: 'api' } } },
    status: { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 4 },
  };

  it('a budget that allows no disruption does not hold back a Pending stuck pod (the API server ignores budgets for pods that do not run)', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } }, (rc) => {
      rc.podDisruptionBudgets?.push(structuredClone(exhaustedBudget));
    });
    const r = await run(c);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(evictions(c)).toContain('POST /api/v1/namespaces/team-a/pods/api-5d8f7c9b6-x2kq9/eviction');
    const s = summaryOf(r);
    expect(s.message).not.toMatch(/refused by a PodDisruptionBudget/);
    expect(s.outcome).toMatch(/team-a\/api-5d8f7c9b6-x2kq9 → team-a\/api-5d8f7c9b6-[a-z0-9]{5} Running after [\d.]+ s/);
  });

  it('asks first by default: approved through the signed link, the node probed again, then evicted; the e-mail says who approved', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { remedies: {}, evictApproval: 'approve' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const order = ['After the check?', 'Evict: request', 'Door: ask', 'Pods evicted?'];
    expect(order.map((x) => r.states.indexOf(x))).toEqual(
      [...order.map((x) => r.states.indexOf(x))].sort((a, b) => a - b),
    );
    expect(order.every((x) => r.states.includes(x))).toBe(true);
    // After the approval the door probes the node again (evidence newer than the approval), then evicts.
    expect(r.commands.map((x) => x.document)).toEqual([
      'pod-doctor-probeNode',
      'pod-doctor-repairPauseImage',
      'pod-doctor-probeNode',
      'pod-doctor-probeNode',
    ]);
    expect(r.sns.map((m) => m.subject).join('\n')).toMatch(/approval needed: evict-stuck-pods/);
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/^repaired and verified after eviction: /);
    expect(s.message).toMatch(/evict-stuck-pods: re-created and running \(approved at .* from 203\.0\.113\.10\)/);
  });

  it('a rejected eviction evicts nothing and names the command to run by hand', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { remedies: {}, evictApproval: 'reject' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(evictions(c)).toEqual([]);
    expect((r.output.door as { done: { evict: { outcome: string } } }).done.evict.outcome).toBe('not-approved');
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/^repaired, verification failed: .*; evict-stuck-pods not run: /);
    expect(s.message).toMatch(/kubectl delete pod -n team-a worker-0/);
  });

  it('a kill switch set while the eviction waits for approval: the gate refuses, nothing is evicted', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { remedies: {}, evictApproval: 'approve', killSwitchDuringEvictApproval: 'on' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Door: ask');
    expect(evictions(c)).toEqual([]);
    // The kill switch is read before anything else: not even a probe of the node after the approval.
    expect(r.commands.map((x) => x.document).filter((d) => d === 'pod-doctor-probeNode')).toHaveLength(2);
    expect(summaryOf(r).outcome).toMatch(/evict-stuck-pods not run: blocked right before acting: kill switch is on/);
  });

  it('Lambda throttling on the eviction and on the watch is retried: evicted once, verified', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, {
      taskFaults: {
        Door: { error: 'Lambda.TooManyRequestsException', times: 2, when: onSlot('evict') },
        'Watch recreated pods': { error: 'Lambda.TooManyRequestsException', times: 1 },
      },
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(evictions(c).filter((w) => w.includes('nginx-7cdbb5f49f-2p6p2'))).toHaveLength(1);
    expect(summaryOf(r).outcome).toMatch(/^repaired and verified after eviction: /);
  });

  it('the cluster refuses every eviction: reported per pod, recorded and notified, the cap slot given back', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    c.server.faults.push({ path: '/api/v1/namespaces/', method: 'POST', status: 403, times: 100 });
    const r = await run(c);
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).not.toContain('Watch recreated pods');
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/evict-stuck-pods: evicted no pod/);
    expect(s.message).toMatch(/eviction failed: default\/nginx-7cdbb5f49f-2p6p2: KubernetesForbiddenError/);
    expect(r.sns).toHaveLength(1);
    // The door reserved a slot of the hourly cap; it is given back: nothing was evicted.
    const slots = (await r.table.scan()).filter(
      (x) => String(x.sk).startsWith('SLOT') && String(x.holder).endsWith('#evict'),
    );
    expect(slots).toEqual([]);
  });

  it('the door itself failing on the eviction (its function crashing): recorded and notified as a failed incident', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { taskFaults: { Door: { error: 'Error', message: 'crash', when: onSlot('evict') } } });
    expect(r.status).toBe('FAILED');
    expect(r.states.slice(-3)).toEqual(['Record failure', 'Notify failure', 'Workflow failed']);
    expect(evictions(c)).toEqual([]);
    expect(r.sns).toHaveLength(1);
  });

  it('observe mode: no repair and no eviction, only recommendations', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { modes: { 'sandbox-image': 'observe' } });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.commands.map((x) => x.document)).not.toContain('pod-doctor-repairPauseImage');
    // Decide plans no eviction without a repair to follow.
    expect((r.output.plan as { evict: unknown }).evict).toBeNull();
    expect(r.states).not.toContain('Evict: request');
    expect(evictions(c)).toEqual([]);
  });

  it('dry run: the API server evaluates the evictions and nothing is evicted', async () => {
    const c = await start({ recreateEvicted: { readyAfterMs: 300 } });
    const r = await run(c, { remedies: { 'sandbox-image': 'dry-run' } });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Evict: request');
    expect((r.output.door as { done: { evict: { outcome: string } } }).done.evict.outcome).toBe('dry-run');
    expect(r.states).not.toContain('Watch recreated pods');
    expect(evictions(c).length).toBeGreaterThan(0);
    expect(
      c.server.seen.filter((x) => x.path.endsWith('/eviction')).every((x) => x.query.get('dryRun') === 'All'),
    ).toBe(true);
    expect(c.server.cluster.pods.some((p) => (p.metadata as { name: string }).name === 'nginx-7cdbb5f49f-2p6p2')).toBe(
      true,
    );
    expect(summaryOf(r).outcome).toMatch(/dry run: evict-stuck-pods would evict .*default\/nginx-7cdbb5f49f-2p6p2/);
  });
});
