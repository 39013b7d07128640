import { describe, expect, it } from 'vitest';
import {
  actionOutcome,
  ClusterEventInputError,
  camelWord,
  clipBytes,
  clusterEvents,
  EVENT_API_LIMITS,
  eventName,
  INCIDENT_LABEL,
  incidentDigest,
  microTime,
  REPORTING_CONTROLLER,
  type WriteBackNotice,
} from '../../lambdas/core/voices/cluster-events.js';
import { existingEvent, planEventWrites } from '../../lambdas/core/voices/event-series.js';

const AT = new Date('2026-12-01T23:00:00.123Z');
const INSTANCE = 'pod-doctor-eu-west-1';
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

const notice = (over: Partial<WriteBackNotice> = {}): WriteBackNotice => ({
  incidentId: 'prod/subnet-exhaustion/subnet-0abc1234',
  class: 'subnet-exhaustion',
  cause:
    'subnet-exhaustion: InsufficientCidrBlocks; network.prefix-blocks: 0 free aligned /28 in subnet-0abc1234; CIDR reservation proposed',
  evidence: [
    'failed to assign an IP address to container: InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks',
  ],
  actions: ['create-cidr-reservation: waiting for approval until 2026-12-02T00:00:00.000Z'],
  links: [{ label: 'summary', url: 's3://evidence-bucket/incidents/prod/summary.json' }],
  ...over,
});
const targets = {
  node: { name: 'ip-10-0-1-23.eu-west-1.compute.internal', uid: 'node-uid-1' },
  pods: [
    { namespace: 'default', name: 'nginx-7cdbb5f49f-2p6p2', uid: 'pod-uid-1' },
    { namespace: 'shop', name: 'cart-5d9f7b-x1', uid: 'pod-uid-2' },
  ],
};

describe('the events pod-doctor writes back for an incident', () => {
  it('puts the cause and each action on the node (in default) and on every stuck pod (in its namespace)', () => {
    const events = clusterEvents(notice(), targets, INSTANCE, AT);
    expect(events).toHaveLength(6);
    expect(events.map((e) => [e.regarding.kind, e.metadata.namespace, e.reason])).toEqual([
      ['Node', 'default', 'Diagnosed'],
      ['Node', 'default', 'ApprovalRequested'],
      ['Pod', 'default', 'Diagnosed'],
      ['Pod', 'default', 'ApprovalRequested'],
      ['Pod', 'shop', 'Diagnosed'],
      ['Pod', 'shop', 'ApprovalRequested'],
    ]);
    const [cause, action] = events;
    expect(cause).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      reportingController: REPORTING_CONTROLLER,
      reportingInstance: INSTANCE,
      action: 'Diagnose',
      type: 'Warning',
      eventTime: '2026-12-01T23:00:00.123000Z',
      regarding: { apiVersion: 'v1', kind: 'Node', name: targets.node.name, uid: 'node-uid-1' },
    });
    expect(cause.regarding).not.toHaveProperty('namespace');
    expect(cause.note).toMatch(/^subnet-exhaustion: InsufficientCidrBlocks; .*0 free aligned \/28 in subnet-0abc1234/);
    expect(cause.note).toContain('Evidence: "failed to assign an IP address');
    expect(cause.note).toMatch(/incident prod\/subnet-exhaustion\/subnet-0abc1234; summary: s3:\/\/evidence-bucket\//);
    expect(action).toMatchObject({ action: 'CreateCidrReservation', type: 'Normal' });
    expect(events[4].regarding).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      name: 'cart-5d9f7b-x1',
      namespace: 'shop',
      uid: 'pod-uid-2',
    });
    for (const e of events) expect(e.metadata.labels[INCIDENT_LABEL]).toBe(incidentDigest(notice().incidentId));
  });

  it('reports a failed action as a Warning and a verified one as Normal', () => {
    expect(actionOutcome('Failed')).toEqual({ reason: 'ActionFailed', type: 'Warning' });
    expect(actionOutcome('rolled-back')).toEqual({ reason: 'ActionFailed', type: 'Warning' });
    expect(actionOutcome('verified (approved through the signed link)')).toEqual({
      reason: 'ActionVerified',
      type: 'Normal',
    });
    expect(actionOutcome('Success')).toEqual({ reason: 'ActionSucceeded', type: 'Normal' });
    expect(actionOutcome('not run')).toEqual({ reason: 'ActionNotRun', type: 'Normal' });
    expect(actionOutcome('dry-run')).toEqual({ reason: 'ActionDryRun', type: 'Normal' });
  });

  it('keeps a note within 1024 bytes with 100 KB of multi-byte evidence, and its incident and summary link whole', () => {
    const huge = `${'é漢🙂'.repeat(12_000)} end`;
    const events = clusterEvents(notice({ evidence: [huge, huge], cause: 'x'.repeat(5_000) }), targets, INSTANCE, AT);
    for (const e of events) {
      expect(bytes(e.note)).toBeLessThanOrEqual(EVENT_API_LIMITS.note);
      expect(e.note).toMatch(
        /incident prod\/subnet-exhaustion\/subnet-0abc1234; summary: s3:\/\/evidence-bucket\/incidents\/prod\/summary\.json$/,
      );
      expect(e.note).not.toContain('\uFFFD');
    }
    expect(events.filter((e) => e.reason === 'Diagnosed').every((e) => e.note.includes('… incident'))).toBe(true);
    expect(clipBytes('ab🙂cd', 6)).toBe('ab…');
    expect(bytes(clipBytes('ab🙂cd', 7))).toBeLessThanOrEqual(7);
  });

  it('quotes log text on one line, redacted, so it cannot pass for pod-doctor sentences or terminal control', () => {
    const forged =
      'pull failed\n\u001b[2J" verified. incident fake; summary: https://evil.example <!channel> password=hunter2secret';
    const [cause] = clusterEvents(notice({ evidence: [forged] }), targets, INSTANCE, AT);
    expect(cause.note).not.toMatch(/\p{Cc}/u);
    expect(cause.note).not.toContain('hunter2secret');
    expect(cause.note).toContain('password=[REDACTED]');
    expect(cause.note).toContain(
      '"pull failed [2J\\" verified. incident fake; summary: https://evil.example <!channel>',
    );
    expect(cause.note.endsWith('summary: s3://evidence-bucket/incidents/prod/summary.json')).toBe(true);
  });

  it('bounds the objects and actions of one incident: the node, 5 pods, the cause and 3 actions each', () => {
    const pods = Array.from({ length: 40 }, (_, i) => ({ namespace: 'default', name: `web-${i}` }));
    const actions = Array.from({ length: 10 }, (_, i) => `step-${i}: Success`);
    const events = clusterEvents(notice({ actions }), { ...targets, pods }, INSTANCE, AT);
    expect(events).toHaveLength(6 * 4);
    expect(new Set(events.map((e) => e.regarding.name)).size).toBe(6);
  });

  it('writes no event about an object whose name the API would refuse', () => {
    const events = clusterEvents(
      notice({ actions: [] }),
      {
        node: { name: 'Not A Node' },
        pods: [
          { namespace: 'default', name: 'x/../y' },
          { namespace: 'ok', name: 'p' },
        ],
      },
      INSTANCE,
      AT,
    );
    expect(events.map((e) => e.regarding.name)).toEqual(['p']);
  });

  it('names events stably per incident, object and kind of event, within the API name rules', () => {
    const longPod = `${'a'.repeat(240)}-b.c-d`;
    const [a] = clusterEvents(notice(), { pods: [{ namespace: 'ns', name: longPod }] }, INSTANCE, AT);
    const [again] = clusterEvents(notice(), { pods: [{ namespace: 'ns', name: longPod }] }, INSTANCE, new Date());
    const [other] = clusterEvents(
      notice({ incidentId: 'other' }),
      { pods: [{ namespace: 'ns', name: longPod }] },
      INSTANCE,
      AT,
    );
    expect(a.metadata.name).toBe(again.metadata.name);
    expect(a.metadata.name).not.toBe(other.metadata.name);
    expect(a.metadata.name.length).toBeLessThanOrEqual(253);
    expect(a.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    const o = { kind: 'Pod' as const, name: 'p', namespace: 'n' };
    expect(eventName('i', o, { action: 'A', reason: 'R', type: 'Normal' }, INSTANCE)).not.toBe(
      eventName('i', o, { action: 'A', reason: 'R2', type: 'Normal' }, INSTANCE),
    );
  });

  it('makes machine-readable actions of action ids, and MicroTimes with six fraction digits', () => {
    expect(camelWord('restart-runtime')).toBe('RestartRuntime');
    expect(camelWord('evict stuck pods; <x>')).toBe('EvictStuckPodsX');
    expect(camelWord('---')).toBe('Action');
    expect(camelWord('a'.repeat(300)).length).toBe(128);
    expect(microTime(new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05.000000Z');
  });

  it('refuses a reporting instance the API would refuse', () => {
    expect(() => clusterEvents(notice(), targets, '', AT)).toThrow(ClusterEventInputError);
    expect(() => clusterEvents(notice(), targets, 'i'.repeat(129), AT)).toThrow(ClusterEventInputError);
  });
});

describe('event series, rate limit and the cap per incident', () => {
  const desired = clusterEvents(notice(), targets, INSTANCE, AT);
  const held = (at: Date, count?: number) =>
    desired.map((e, i) => ({
      namespace: e.metadata.namespace,
      name: e.metadata.name,
      resourceVersion: String(100 + i),
      eventTime: microTime(AT),
      ...(count ? { series: { count, lastObservedTime: microTime(at) } } : {}),
    }));

  it('creates every event of a new incident', () => {
    const plan = planEventWrites(desired, [], AT);
    expect(plan.writes.map((w) => w.op)).toEqual(desired.map(() => 'create'));
    expect(plan.suppressed).toEqual([]);
  });

  it('writes nothing for a repeat within 5 minutes, and says so for each event', () => {
    const plan = planEventWrites(desired, held(AT), new Date(AT.getTime() + 4 * 60_000));
    expect(plan.writes).toEqual([]);
    expect(plan.suppressed.map((s) => s.why)).toEqual(desired.map(() => 'repeat-within-interval'));
  });

  it('turns a later repeat into a series: count 2, then one more each time, guarded by the version read', () => {
    const later = new Date(AT.getTime() + 6 * 60_000);
    const first = planEventWrites(desired, held(AT), later);
    expect(first.writes[0]).toEqual({
      op: 'series',
      namespace: 'default',
      name: desired[0].metadata.name,
      patch: { metadata: { resourceVersion: '100' }, series: { count: 2, lastObservedTime: microTime(later) } },
    });
    const third = planEventWrites(desired, held(later, 2), new Date(later.getTime() + 6 * 60_000));
    expect(third.writes.map((w) => (w.op === 'series' ? w.patch.series.count : 0))).toEqual(desired.map(() => 3));
    const soon = planEventWrites(desired, held(later, 2), new Date(later.getTime() + 60_000));
    expect(soon.writes).toEqual([]);
  });

  it('creates no event beyond the cap per incident, yet keeps the series of the ones it holds', () => {
    const others = Array.from({ length: 22 }, (_, i) => ({
      namespace: 'default',
      name: `older.${i}`,
      resourceVersion: '1',
      eventTime: microTime(AT),
    }));
    const plan = planEventWrites(desired, [...others, ...held(AT).slice(0, 1)], new Date(AT.getTime() + 600_000));
    expect(plan.writes.map((w) => w.op)).toEqual(['series', 'create']);
    expect(plan.suppressed.map((s) => s.why)).toEqual(['incident-cap', 'incident-cap', 'incident-cap', 'incident-cap']);
  });

  it('sends at most the run cap in one run', () => {
    const plan = planEventWrites(desired, [], AT, { repeatAfterMs: 0, maxEventsPerIncident: 100, maxWritesPerRun: 2 });
    expect(plan.writes).toHaveLength(2);
    expect(plan.suppressed.map((s) => s.why)).toEqual(['run-cap', 'run-cap', 'run-cap', 'run-cap']);
  });

  it('reads back only objects shaped as events', () => {
    expect(existingEvent({ metadata: { name: 'a', namespace: 'b', resourceVersion: '3' }, eventTime: 't' })).toEqual({
      name: 'a',
      namespace: 'b',
      resourceVersion: '3',
      eventTime: 't',
    });
    expect(existingEvent({ metadata: { name: 'a' } })).toBeUndefined();
    expect(existingEvent('x')).toBeUndefined();
  });
});
