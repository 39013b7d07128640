import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_DNS } from '../../local/account-snapshot.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { localKubernetes } from '../../local/kubernetes.js';
import { runWorkflow, synthesizedDefinition } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { incident, recordedPods, summaryOf } from './support.js';

/** The recorded cluster's stuck pods, placed on the incident's node. */
const server = new KubeApiServer();
let endpoint = '';
let definition: Record<string, unknown>;

beforeAll(async () => {
  endpoint = await server.start();
  definition = synthesizedDefinition();
});
afterAll(() => server.stop());
beforeEach(() => {
  server.cluster = recordedCluster();
  for (const p of server.cluster.pods as { spec: { nodeName: string } }[]) p.spec.nodeName = NODE_DNS;
  server.watchSteps = [];
  server.seen.length = 0;
});

const run = (kubernetes = localKubernetes(server, endpoint, 1)) =>
  runWorkflow(incident({ pods: recordedPods() }), {
    account: healthyAccount(),
    definition,
    node: simulatedPauseNode(),
    kubernetes,
  });

function running(pod: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(pod) as { status: Record<string, unknown> };
  copy.status.phase = 'Running';
  copy.status.containerStatuses = [
    { name: 'app', ready: true, state: { running: { startedAt: '2026-11-29T10:06:00Z' } } },
  ];
  return copy;
}

// A real TLS handshake per API call and a watch: slower than the other workflow tests.
describe('verification by positive signal (the synthesized workflow, Kubernetes API on a local HTTPS server)', {
  timeout: 60_000,
}, () => {
  it('verifies the repair when the stuck pods of the node start, naming each pod', async () => {
    const stuck = (server.cluster.pods as Record<string, unknown>[]).slice(0, 5);
    server.watchSteps = stuck.map((p, i) => ({ afterMs: 30 + 10 * i, type: 'MODIFIED' as const, object: running(p) }));
    const r = await run(localKubernetes(server, endpoint, 20));
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Inspect cluster');
    expect(r.states).toContain('Watch pods start');
    expect(r.states).not.toContain('Wait verification window');
    const s = summaryOf(r);
    expect(s.outcome).toBe('repaired and verified');
    expect(s.message).toMatch(/the stuck pods started: default\/nginx-7cdbb5f49f-2p6p2 after \d+ s/);
    expect(s.message).toContain('k8s.stuck-pods');
  });

  it('does not verify when the pods stay stuck through the window, and says which', async () => {
    const r = await run();
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const s = summaryOf(r);
    expect(s.outcome).toMatch(/^repaired, verification failed: /);
    expect(s.message).toMatch(/still not running after 1 s: default\/nginx-7cdbb5f49f-2p6p2/);
  });

  it('a tenant pod that can never start on the node does not fail a verified repair: only the pods the incident named are watched', async () => {
    // The incident named the first pod; every other pod of the node stays stuck (a tenant's that never starts).
    const [named] = server.cluster.pods as Record<string, unknown>[];
    const { namespace, name } = named.metadata as { namespace: string; name: string };
    server.watchSteps = [{ afterMs: 30, type: 'MODIFIED' as const, object: running(named) }];
    const r = await runWorkflow(incident({ pods: [`${namespace}/${name}`] }), {
      account: healthyAccount(),
      definition,
      node: simulatedPauseNode(),
      kubernetes: localKubernetes(server, endpoint, 20),
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    const s = summaryOf(r);
    expect(s.outcome).toBe('repaired and verified');
    expect(s.message).toMatch(new RegExp(`the stuck pods started: ${namespace}/${name} after \\d+ s`));
    // Named no pod: nothing to watch, the node's own probe verifies.
    const none = await runWorkflow(incident({ pods: [] }), {
      account: healthyAccount(),
      definition,
      node: simulatedPauseNode(),
      kubernetes: localKubernetes(server, endpoint, 1),
    });
    expect(summaryOf(none).outcome).toBe('repaired and verified');
  });

  it('without cluster access: reports the inspection error, still repairs (Kubernetes findings are not a gate) and verifies after the window', async () => {
    const r = await runWorkflow(incident({ pods: recordedPods() }), {
      account: healthyAccount(),
      definition,
      node: simulatedPauseNode(),
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Cluster not inspected');
    expect(r.states).toContain('Wait verification window');
    const s = summaryOf(r);
    expect(s.outcome).toBe('repaired and verified');
    expect(s.message).toMatch(/k8s\.stuck-pods/);
  });

  it('falls back to the window when the watch itself fails (forbidden)', async () => {
    server.faults.push({ path: '/api/v1/pods', status: 403, times: 1, onWatch: true });
    const r = await run();
    expect(r.states).toContain('Watch pods start');
    expect(r.states).toContain('Wait verification window');
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });
});
