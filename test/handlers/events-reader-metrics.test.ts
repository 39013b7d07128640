import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ClusterEventsOutcome } from '../../lambdas/aws/kubernetes/events-service.js';

let publishOutcomes: (o: readonly ClusterEventsOutcome[]) => void;
beforeAll(async () => {
  // Local runs turn metrics off (local/quiet.ts): on here, as in Lambda, with a fresh module.
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'PodDoctor');
  vi.resetModules();
  ({ publishOutcomes } = await import('../../lambdas/handlers/kubernetes-events.js'));
});

/** The EMF documents Powertools wrote to stdout (one JSON object per line). */
function emf(written: string[]): { dimensions: string[][]; metrics: string[]; doc: Record<string, unknown> }[] {
  return written
    .join('')
    .split('\n')
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((doc) => {
      const d = (doc._aws as { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] })
        .CloudWatchMetrics[0];
      return { dimensions: d.Dimensions, metrics: d.Metrics.map((m) => m.Name), doc };
    });
}

const outcome = (cluster: string): ClusterEventsOutcome =>
  ({
    cluster,
    readable: true,
    counts: {
      received: 7,
      classified: 5,
      rejected: 1,
      relists: 0,
      apiErrors: 0,
      corroborated: 4,
      uncorroborated: 1,
      overBudget: 0,
      dropped: 0,
    },
    incidentsOpened: [],
    incidentsJoined: [],
    workflowsStarted: [],
    rejectKeys: ['k'],
  }) as unknown as ClusterEventsOutcome;

afterEach(() => vi.restoreAllMocks());

describe("the events reader's metrics", () => {
  it('every metric of every cluster carries its cluster dimension and value', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
      written.push(String(c));
      return true;
    });
    publishOutcomes([outcome('prod-eu'), outcome('prod-us')]);
    const docs = emf(written);
    const names = [
      'EventsReadable',
      'EventsReceived',
      'EventsClassified',
      'EventsRejected',
      'EventsRelisted',
      'EventsApiErrors',
      'EventsCorroborated',
      'EventsUncorroborated',
      'EventsOverBudget',
      'IncidentsDropped',
    ];
    expect(docs.flatMap((d) => d.metrics).sort()).toEqual([...names, ...names].sort());
    for (const d of docs) {
      expect(d.dimensions.flat(), d.metrics.join()).toContain('cluster');
      expect(['prod-eu', 'prod-us']).toContain(d.doc.cluster);
    }
    const received = docs.filter((d) => d.metrics.includes('EventsReceived'));
    expect(received.map((d) => [d.doc.cluster, d.doc.EventsReceived])).toEqual([
      ['prod-eu', 7],
      ['prod-us', 7],
    ]);
  });
});
