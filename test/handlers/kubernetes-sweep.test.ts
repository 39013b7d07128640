import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { IncidentStore } from '../../lambdas/aws/ingest/incident-store.js';
import { sweepClusters } from '../../lambdas/aws/kubernetes/sweep.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { metrics } from '../../lambdas/aws/runtime/powertools.js';
import { mapBounded } from '../../lambdas/core/text/map-bounded.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { KubeApiServer, recordedCluster } from '../../local/kube-api-server.js';
import { withLambdaEnv } from '../../local/lambda-env.js';
import { lambdaContext } from '../support/lambda-context.js';

// The sweep's access entry maps to group pod-doctor only (no actions).
const server = new KubeApiServer({ groups: ['pod-doctor'] });
let endpoint = '';
let table: LocalTable;
const started: { id: string; input: string }[] = [];
const NOW = Date.parse('2026-11-30T10:30:00Z');

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
beforeEach(async () => {
  table = await freshTable('sweep-incidents');
  server.cluster = recordedCluster();
  started.length = 0;
});

function deps(clusters = ['prod'], now = NOW) {
  const tokens = new EksTokenCache({ accessKeyId: 'AKID', secretAccessKey: 'x' });
  return {
    clusters,
    api: async (name: string) => {
      if (name !== 'prod')
        throw Object.assign(new Error(`cluster ${name} uses authentication mode CONFIG_MAP`), {
          name: 'ClusterNotReachableError',
        });
      return new ClusterApi({ name, region: 'us-east-2', endpoint, certificateAuthorityData: server.caData }, tokens);
    },
    incidents: new IncidentStore(table.client, { tableName: table.name, windowMs: 30 * 60_000, retentionDays: 365 }),
    workflow: {
      start: async (id: string, input: string) => {
        started.push({ id, input });
        return `arn:aws:states:us-east-2:111122223333:execution:wf:${id}`;
      },
    },
    now: () => now,
  };
}

describe('scheduled Kubernetes sweep → incidents (dynalite table, local API server)', { timeout: 60_000 }, () => {
  it('opens one incident per (cluster, scope, class) for stuck pods and starts their workflows', async () => {
    const r = await sweepClusters(deps());
    expect(r.clusters).toEqual([{ cluster: 'prod', stuck: 5, examined: 5, unexplained: 1 }]);
    expect(r.incidentsOpened.length).toBe(started.length);
    const classes = (await table.scan())
      .filter((i) => String(i.sk) === 'OPEN')
      .map((i) => i.class)
      .sort();
    expect(classes).toEqual(['image-not-found', 'ip-exhaustion', 'registry-auth', 'sandbox-image']);
    const sandbox = started.map((s) => JSON.parse(s.input)).find((i) => i.class === 'sandbox-image');
    expect(sandbox.entities.node).toBe('ip-192-168-149-143.us-east-2.compute.internal');
  });

  it('joins the open incidents on the next sweep instead of starting more workflows', async () => {
    const first = await sweepClusters(deps());
    const second = await sweepClusters(deps(['prod'], NOW + 5 * 60_000));
    expect(second.incidentsOpened).toEqual([]);
    expect(second.incidentsJoined.sort()).toEqual(first.incidentsOpened.sort());
    expect(started.length).toBe(first.incidentsOpened.length);
  });

  it('reports a cluster it cannot read and still sweeps the others', async () => {
    const r = await sweepClusters(deps(['legacy', 'prod']));
    expect(r.clusters[0]).toMatchObject({ cluster: 'legacy', error: expect.stringContaining('CONFIG_MAP') });
    expect(r.clusters[1]?.stuck).toBe(5);
  });

  it('a pause image outside the trusted repositories is a workload pull, not sandbox-image', async () => {
    const events = server.cluster.events['team-a/api-5d8f7c9b6-x2kq9'] as { message: string }[];
    if (events[0])
      events[0].message = events[0].message.replaceAll(
        '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause',
        'evil.example.com/eks/pause',
      );
    await sweepClusters(deps());
    const classes = (await table.scan()).filter((i) => String(i.sk) === 'OPEN').map((i) => i.class);
    expect(classes).not.toContain('sandbox-image');
  });
});

describe('the sweep fans out: clusters in parallel, bounded, each within its own deadline', { timeout: 60_000 }, () => {
  it('a cluster that never answers and one that fails hold up neither each other nor the cluster that works', async () => {
    const base = deps(['prod']);
    const started = Date.now();
    const r = await sweepClusters({
      ...base,
      clusters: ['silent', 'legacy', 'prod'],
      // Long enough for the working cluster's reads on a loaded machine; the silent one never answers.
      clusterDeadlineMs: 8_000,
      api: (name: string) => (name === 'silent' ? new Promise(() => undefined) : deps().api(name)),
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(r.clusters.map((c) => [c.cluster, c.error?.split(':')[0] ?? 'ok'])).toEqual([
      ['silent', 'ClusterSweepTimeoutError'],
      ['legacy', 'ClusterNotReachableError'],
      ['prod', 'ok'],
    ]);
    expect(r.clusters[2]?.stuck).toBe(5);
    expect(r.incidentsOpened.length).toBeGreaterThan(0);
  });

  it('never runs more clusters at once than its bound, and keeps their order', async () => {
    let running = 0;
    let most = 0;
    const out = await mapBounded(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (i) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5 + (i % 4)));
        running -= 1;
        return i * 2;
      },
    );
    expect(most).toBe(3);
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });

  it('the handler counts ClusterReadFailed once per cluster it could not read, with the cluster as dimension', async () => {
    Object.assign(process.env, {
      INCIDENT_TABLE_NAME: table.name,
      INCIDENT_WINDOW_MINUTES: '30',
      WORKFLOW_ARN: 'arn:aws:states:us-east-2:111122223333:stateMachine:wf',
    });
    withLambdaEnv();
    const { createHandler } = await import('../../lambdas/handlers/kubernetes-sweep.js');
    const published: { dimensions: Record<string, string>; name: string; value: number }[] = [];
    vi.spyOn(metrics, 'singleMetric').mockImplementation(() => {
      const dimensions: Record<string, string> = {};
      const m = {
        addDimension: (k: string, v: string) => {
          dimensions[k] = v;
          return m;
        },
        addMetric: (name: string, _unit: unknown, value: number) => {
          published.push({ dimensions, name, value });
          return m;
        },
      };
      return m as never;
    });
    await createHandler(async () => deps(['legacy', 'prod']))({}, lambdaContext());
    vi.restoreAllMocks();
    expect(published).toEqual([{ dimensions: { cluster: 'legacy' }, name: 'ClusterReadFailed', value: 1 }]);
  });
});
