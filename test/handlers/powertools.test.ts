import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { metrics, UnpublishedMetricsError, withPowertools } from '../../lambdas/aws/runtime/powertools.js';

const context = {
  functionName: 'pod-doctor-test',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;
const schema = z.object({ n: z.number() });

/** Everything written to stdout and stderr (Powertools Metrics writes EMF and warnings there, Logger too). */
let written: string[] = [];
beforeEach(() => {
  written = [];
  const keep = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => keep(a.join(' ')));
});
afterEach(() => {
  vi.restoreAllMocks();
  metrics.clearMetrics();
});

describe('withPowertools: metrics', () => {
  it('a handler that buffers no metrics flushes nothing: no "No application metrics to publish" warning', async () => {
    const handler = withPowertools(schema, async (e) => e.n + 1);
    expect(await handler({ n: 1 }, context)).toBe(2);
    expect(await handler({ n: 2 }, context)).toBe(3);
    expect(written.join('')).not.toContain('No application metrics');
  });

  it('a handler that declares storedMetrics has its buffer published after each invocation', async () => {
    const handler = withPowertools(
      schema,
      async (e) => {
        metrics.addMetric('Probed', MetricUnit.Count, e.n);
        return e.n;
      },
      { storedMetrics: true },
    );
    const published = vi.spyOn(metrics, 'publishStoredMetrics');
    await handler({ n: 3 }, context);
    // Tests run with POWERTOOLS_METRICS_DISABLED (local/quiet.ts): the flush happens, the EMF line is not printed.
    expect(published).toHaveBeenCalledTimes(1);
    expect(metrics.hasStoredMetrics()).toBe(false);
    expect(written.join('')).not.toContain('No application metrics');
  });

  it('buffered metrics without storedMetrics are a wiring error, not metrics silently never published', async () => {
    const handler = withPowertools(schema, async (e) => {
      metrics.addMetric('Lost', MetricUnit.Count, e.n);
      return e.n;
    });
    await expect(handler({ n: 1 }, context)).rejects.toThrow(UnpublishedMetricsError);
  });

  it('a failing invocation keeps its own error; what it buffered is published, not carried into the next one', async () => {
    class DomainError extends Error {}
    const handler = withPowertools(schema, async (e) => {
      metrics.addMetric('Failed', MetricUnit.Count, e.n);
      throw new DomainError('no');
    });
    await expect(handler({ n: 1 }, context)).rejects.toThrow(DomainError);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });
});
