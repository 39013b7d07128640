import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classify, quickUnknown } from '../../lambdas/core/detect/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { parseRecord } from '../../lambdas/core/detect/records.js';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';
import { subscriptionEvent } from '../support/fixtures.js';

/**
 * Every log group a user really has, each record in the shape its shipper writes (the shape's public source in
 * `shapeSource`), around a real line (its thread in `lineSource`): test/fixtures/log-sources/records.jsonl.
 */
interface SourceRecord {
  readonly name: string;
  readonly logGroup: string;
  readonly shapeSource: string;
  readonly record: Record<string, unknown>;
  readonly lineSource: string;
  readonly class: string;
}

const records: SourceRecord[] = readFileSync(join(PROJECT_ROOT, 'test/fixtures/log-sources/records.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as SourceRecord);
const passes = compileFilterPattern(buildFilterPattern());
const NOW = Date.parse('2026-11-29T12:00:00Z');

describe('log sources', () => {
  it('has a record for each shipper shape: Fluent Bit dataplane, host, application, and OpenTelemetry', () => {
    expect(records.map((r) => r.name)).toEqual([
      'fluent-bit-dataplane-kubelet',
      'fluent-bit-dataplane-containerd',
      'fluent-bit-dataplane-aws-node',
      'fluent-bit-host-kubelet',
      'fluent-bit-application-cri-prefix',
      'otel-cloudwatchlogs-exporter-aws-node',
      'otel-otlp-host-syslog',
    ]);
  });

  it.each(records.map((r) => [r.name, r] as const))('%s: read, classified and let through the filter', (_, r) => {
    const line = JSON.stringify(r.record);
    expect(passes(line)).toBe(true);
    expect(quickUnknown(line)).toBeUndefined();
    const c = classify(line);
    expect(c.error).toBeUndefined();
    expect(c.class).toBe(r.class);
    // The message is the shipped line, not the envelope around it.
    expect(c.message.startsWith('{"body"') || c.message.startsWith('{"log"')).toBe(false);
  });

  it('takes the node and instance from the envelope, the program from the unit, identifier or container', () => {
    const by = Object.fromEntries(records.map((r) => [r.name, parseRecord(JSON.stringify(r.record))]));
    expect(by['fluent-bit-dataplane-kubelet']).toMatchObject({
      format: 'container-insights',
      node: 'ip-10-0-12-34.us-west-2.compute.internal',
      instanceId: 'i-0a1b2c3d4e5f60718',
      source: 'kubelet',
    });
    expect(by['fluent-bit-dataplane-aws-node']).toMatchObject({
      format: 'container-insights',
      instanceId: 'i-0a1b2c3d4e5f60718',
    });
    expect(by['fluent-bit-host-kubelet']).toMatchObject({ node: 'ip-10-0-12-34', source: 'kubelet' });
    expect(by['fluent-bit-application-cri-prefix']).toMatchObject({ source: 'aws-node', level: 'error' });
    expect(by['otel-cloudwatchlogs-exporter-aws-node']).toMatchObject({
      format: 'opentelemetry',
      node: 'ip-10-0-12-34.us-west-2.compute.internal',
      instanceId: 'i-0a1b2c3d4e5f60718',
      source: 'aws-node',
    });
    // The resource's node name; the program from the syslog line the body carries.
    expect(by['otel-otlp-host-syslog']).toMatchObject({ format: 'opentelemetry', node: 'node4', source: 'kubelet' });
  });

  it('maps each group to its cluster: Container Insights by name (Fluent Bit and OpenTelemetry), user-named groups by configuration', () => {
    const config = { logGroupClusters: { '/eks/prod-eu/aws-node': 'prod-eu' }, accountScope: 'account' };
    for (const r of records) {
      const out = readEvent(subscriptionEvent([JSON.stringify(r.record)], { logGroup: r.logGroup }), config, NOW);
      expect(out.stats).toMatchObject({ received: 1, classified: 1, rejected: 0 });
      expect(out.occurrences[0]).toMatchObject({ cluster: 'prod-eu', class: r.class });
    }
  });

  it('keeps a record whose OpenTelemetry body is broken JSON as unreadable, with its format', () => {
    const broken = JSON.stringify({ body: '{"level":"error","msg":"Failed to', resource: {} });
    expect(classify(broken)).toMatchObject({ class: 'unknown', format: 'opentelemetry' });
    expect(classify(broken).error).toMatch(/invalid JSON/);
    expect(quickUnknown(broken)).toMatchObject({
      format: 'opentelemetry',
      error: expect.stringMatching(/invalid JSON/),
    });
  });
});
