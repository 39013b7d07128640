import { describe, expect, it } from 'vitest';
import {
  eventsReading,
  logReading,
  type SignalReading,
  trailReading,
  transitionOf,
} from '../../lambdas/core/incident/signal-health.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const ok = (signal: SignalReading['signal']): SignalReading => ({ signal, status: 'ok', detail: 'fine' });
const dataplaneSilent = logReading('dataplane-logs', {
  group: '/aws/containerinsights/prod-eu/dataplane',
  exists: true,
  what: 'kubelet',
});

describe('signal self-check', () => {
  it('reads the events reader state: read recently is alive, failing for a quarter of an hour is silent', () => {
    expect(eventsReading(undefined, NOW)).toMatchObject({ status: 'unknown' });
    expect(eventsReading({ lastAttemptAt: NOW - 30_000, lastReadAt: NOW - 30_000 }, NOW)).toMatchObject({
      status: 'ok',
    });
    // One failed read after a good one two minutes ago is not a silence yet.
    expect(eventsReading({ lastAttemptAt: NOW, lastReadAt: NOW - 120_000, lastError: 'HTTP 500' }, NOW)).toMatchObject({
      status: 'ok',
    });
    expect(
      eventsReading(
        { lastAttemptAt: NOW, lastReadAt: NOW - 16 * 60_000, lastError: 'KubernetesForbiddenError: …' },
        NOW,
      ),
    ).toMatchObject({ status: 'silent', detail: expect.stringContaining('KubernetesForbiddenError') });
    expect(eventsReading({ lastAttemptAt: NOW, lastError: 'no access entry' }, NOW)).toMatchObject({
      status: 'silent',
    });
  });

  it('tells an absent log group, a silent one and an alive one apart; a trail covering the Region but not logging is silent', () => {
    expect(logReading('application-logs', { group: 'g', exists: false, what: 'aws-node' }).status).toBe('absent');
    expect(dataplaneSilent).toMatchObject({ status: 'silent', detail: expect.stringContaining('last 24 h') });
    expect(logReading('dataplane-logs', { group: 'g', exists: true, lastMatchAt: NOW, what: 'kubelet' }).status).toBe(
      'ok',
    );
    expect(trailReading({ region: 'eu-west-1', covering: [] }).status).toBe('absent');
    expect(trailReading({ region: 'eu-west-1', covering: ['org'] }).status).toBe('silent');
    expect(trailReading({ region: 'eu-west-1', covering: [], logging: 'org' }).status).toBe('ok');
  });

  it('notifies going silent (naming what detection continues from) and coming back, never a repeat, never unknown', () => {
    const readings = [ok('kubernetes-events'), dataplaneSilent, ok('cloudtrail')];
    const down = transitionOf('prod-eu', 'ok', dataplaneSilent, readings);
    expect(down).toMatchObject({
      subject: '[pod-doctor] dataplane-logs silent on prod-eu',
      message: expect.stringMatching(
        /^dataplane-logs silent for 24 h on prod-eu: detection continues from kubernetes-events, cloudtrail\./,
      ),
    });
    expect(transitionOf('prod-eu', 'silent', dataplaneSilent, readings)).toBeUndefined();
    // Silent then absent (the group was deleted) is the same silence: no second notification.
    expect(transitionOf('prod-eu', 'silent', { ...dataplaneSilent, status: 'absent' }, readings)).toBeUndefined();
    expect(transitionOf('prod-eu', 'silent', ok('dataplane-logs'), readings)).toMatchObject({
      subject: '[pod-doctor] dataplane-logs back on prod-eu',
    });
    expect(transitionOf('prod-eu', undefined, ok('dataplane-logs'), readings)).toBeUndefined();
    expect(transitionOf('prod-eu', undefined, dataplaneSilent, readings)).toBeDefined();
    expect(transitionOf('prod-eu', 'ok', { ...dataplaneSilent, status: 'unknown' }, readings)).toBeUndefined();
  });

  it('says only the sweep remains when no other signal is alive', () => {
    const t = transitionOf('prod-eu', 'ok', { signal: 'kubernetes-events', status: 'silent', detail: 'x' }, [
      { signal: 'cloudtrail', status: 'absent', detail: 'no trail' },
    ]);
    expect(t?.message).toContain('only the sweep of stuck pods remains');
  });
});
