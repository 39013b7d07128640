import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import { corpus, fixture, subscriptionEvent } from '../support/fixtures.js';
import { fuzz } from '../support/fuzz.js';

const config = { logGroupClusters: { '/eks/prod-us/ipamd': 'prod-us' }, accountScope: 'account' };
const NOW = Date.parse('2026-11-29T12:00:00Z');
const failureLines = corpus().filter((l) => l.class !== 'unknown');
const healthyLines = corpus().filter((l) => l.class === 'unknown');

describe('reading subscription payloads', () => {
  it('classifies every line of a realistic batch and maps the log group to its cluster', () => {
    const r = readEvent(subscriptionEvent([...failureLines, ...healthyLines].map((l) => l.line)), config, NOW);
    expect(r.stats).toMatchObject({
      received: failureLines.length + healthyLines.length,
      classified: failureLines.length,
      unknown: healthyLines.length,
      rejected: 0,
    });
    expect(new Set(r.occurrences.map((o) => o.cluster))).toEqual(new Set(['prod-eu']));
    expect(r.occurrences[0].at).toBe(Date.parse('2026-11-29T10:00:00Z'));
  });

  it('uses the configured log group mapping before the Container Insights convention', () => {
    const r = readEvent(subscriptionEvent([failureLines[0].line], { logGroup: '/eks/prod-us/ipamd' }), config, NOW);
    expect(r.occurrences[0].cluster).toBe('prod-us');
  });

  it('ignores CONTROL_MESSAGE payloads', () => {
    const r = readEvent(
      subscriptionEvent(['CWL CONTROL MESSAGE: Checking health of destination Lambda'], {
        messageType: 'CONTROL_MESSAGE',
      }),
      config,
      NOW,
    );
    expect(r.stats).toMatchObject({ controlMessages: 1, received: 0, rejected: 0 });
  });

  it('keeps malformed lines as rejects with the reason and where they came from', () => {
    const r = readEvent(subscriptionEvent(['{"hostname": "x", broken', failureLines[0].line]), config, NOW);
    expect(r.stats).toMatchObject({ received: 2, classified: 1, rejected: 1 });
    expect(r.rejects[0]).toMatchObject({
      reason: expect.stringMatching(/invalid JSON/),
      record: '{"hostname": "x", broken',
      logGroup: '/aws/containerinsights/prod-eu/dataplane',
    });
  });

  it('keeps a payload whose gzip is broken as one reject', () => {
    const r = readEvent({ awslogs: { data: Buffer.from('not gzip at all').toString('base64') } }, config, NOW);
    expect(r.stats.rejected).toBe(1);
    expect(r.rejects[0].reason).toMatch(/not a CloudWatch Logs subscription payload/);
    expect(r.rejects[0].record).toContain('awslogs');
  });

  it('keeps a gzip payload without log events as a reject', () => {
    const data = gzipSync(Buffer.from(JSON.stringify({ messageType: 'DATA_MESSAGE', logEvents: [] }))).toString(
      'base64',
    );
    expect(readEvent({ awslogs: { data } }, config, NOW).stats.rejected).toBe(1);
  });

  it('reads CloudTrail events into account-scoped occurrences with the actor in the evidence', () => {
    const r = readEvent(fixture('events/detach-ecr-readonly.json'), config, NOW);
    expect(r.occurrences).toHaveLength(1);
    expect(r.occurrences[0]).toMatchObject({
      class: 'registry-auth',
      kind: 'change',
      cluster: 'account',
      at: Date.parse('2026-11-29T10:02:11Z'),
    });
    expect(r.occurrences[0].evidence).toContain('jane.doe@example.com');
  });

  it.each([
    ['assign-prefix-insufficient-cidr', 'cidr-fragmentation'],
    ['create-eni-insufficient-addresses', 'ip-exhaustion'],
    ['assign-ip-no-free-ipv4', 'ip-exhaustion'],
    ['create-eni-no-free-ipv4', 'ip-exhaustion'],
    ['attach-eni-no-free-ipv4', 'ip-exhaustion'],
  ])('opens a capacity occurrence for every way EC2 refuses a VPC CNI call on a full subnet: %s', (name, cls) => {
    const r = readEvent(fixture(`events/${name}.json`), config, NOW);
    expect(r.stats).toMatchObject({ classified: 1, unknown: 0, rejected: 0 });
    expect(r.occurrences).toEqual([expect.objectContaining({ class: cls, kind: 'failure' })]);
  });
});

describe('never throws, never loses a record', () => {
  it('arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = readEvent(v, config, NOW);
        expect(r.stats.received).toBe(r.stats.classified + r.stats.unknown + r.stats.rejected);
      }),
      fuzz(300),
    );
  });

  it('arbitrary bytes as the awslogs data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), fc.boolean(), (bytes, zip) => {
        const data = Buffer.from(zip ? gzipSync(bytes) : bytes).toString('base64');
        const r = readEvent({ awslogs: { data } }, config, NOW);
        expect(r.stats.rejected + r.stats.controlMessages + r.stats.received).toBeGreaterThanOrEqual(1);
      }),
      fuzz(300),
    );
  });

  it('arbitrary lines, including huge ones and broken JSON, are each counted once', () => {
    const line = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.constantFrom(...corpus().map((l) => l.line)),
      fc.constantFrom(...corpus().map((l) => l.line)).map((l) => l.slice(0, Math.floor(l.length / 2))),
      fc.integer({ min: 300_000, max: 600_000 }).map((n) => 'x'.repeat(n)),
      fc.string({ maxLength: 200 }).map((s) => `{${s}`),
    );
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 20 }), (lines) => {
        const r = readEvent(subscriptionEvent(lines), config, NOW);
        expect(r.stats.received).toBe(lines.length);
        expect(r.stats.classified + r.stats.unknown + r.stats.rejected).toBe(lines.length);
        for (const rej of r.rejects) expect(rej.record.length).toBeLessThan(17_000);
      }),
      fuzz(100),
    );
  });
});
