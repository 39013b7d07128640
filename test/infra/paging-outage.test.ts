import { describe, expect, it } from 'vitest';
import { seeded } from '../../bench/latency-model.js';
import { deliver, retryOf } from '../../local/eventbridge-delivery.js';
import { CHANNELS } from '../support/channels.js';
import { synth } from '../support/synth.js';

/**
 * A paging endpoint down for an hour: the notice is delivered by EventBridge's retries under the
 * synthesized targets' retry policy (nothing lost), kept in the alarmed queue when the outage outlasts
 * them, and the e-mail never waits for it (the state machine publishes to the e-mail topic itself).
 */
type Resource = { Type: string; Properties: Record<string, unknown> };
const { templateJson } = synth({
  clusters: [{ name: 'prod-eu', logGroups: ['/aws/containerinsights/prod-eu/dataplane'] }],
  notificationEmails: ['oncall@example.com'],
  channels: CHANNELS,
});
const resources = Object.entries(templateJson.Resources as Record<string, Resource>);
const pagingTargets = resources
  .filter(([id, r]) => r.Type === 'AWS::Events::Rule' && /ChannelsPaging/.test(id))
  .flatMap(([, r]) => r.Properties.Targets as Parameters<typeof retryOf>[0][]);
const T0 = Date.UTC(2026, 10, 29, 10, 0, 0);
const HOUR = 3_600_000;
/** The endpoint answers 503 (or nothing) until `downFor` has passed, then 202 as PagerDuty does. */
const endpointDown =
  (downFor: number, failure: number | undefined = 503) =>
  async (at: number) =>
    at - T0 < downFor ? failure : 202;

describe('a paging endpoint down for an hour', () => {
  it('the synthesized paging targets are the ones checked (PagerDuty trigger/resolve, Opsgenie create/close)', () => {
    expect(pagingTargets.length).toBe(3);
  });

  it.each([
    ['503 Service Unavailable', 503],
    ['429 Too Many Requests', 429],
    ['no answer', undefined],
  ])('answering %s: delivered once it is back, within the retry policy, nothing dead-lettered', async (_, failure) => {
    for (const [i, target] of pagingTargets.entries()) {
      const d = await deliver(retryOf(target), endpointDown(HOUR, failure), { start: T0, random: seeded(i + 1) });
      expect(d.deliveredAt).toBeGreaterThanOrEqual(T0 + HOUR);
      // Exponential back-off: far fewer calls than one per second, and well inside the 185 retries.
      expect(d.calls).toBeLessThan(40);
      expect(d.deadLettered || d.dropped).toBe(false);
    }
  });

  it('down for 25 hours: the retries end and the notice is kept in the dead-letter queue, not dropped', async () => {
    for (const [i, target] of pagingTargets.entries()) {
      const d = await deliver(retryOf(target), endpointDown(25 * HOUR), { start: T0, random: seeded(i + 7) });
      expect(d.deliveredAt).toBeUndefined();
      expect(d.deadLettered).toBe(true);
    }
  });

  it('a 400 (a payload the endpoint refuses) is not retried: kept in the dead-letter queue at once', async () => {
    const d = await deliver(retryOf(pagingTargets[0]), endpointDown(HOUR, 400), { start: T0, random: seeded(3) });
    expect(d).toEqual({ calls: 1, deadLettered: true, dropped: false });
  });

  it('the model is not lenient: a short retry policy (5 retries, 5 minutes) without a queue loses the notice to an hour down', async () => {
    const bare = retryOf({ RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 300 } });
    const d = await deliver(bare, endpointDown(HOUR), { start: T0, random: seeded(5) });
    expect(d.dropped).toBe(true);
  });

  it('the e-mail does not wait for paging: Notify publishes to the e-mail topic from the state machine', () => {
    const machine = resources.find(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine')?.[1] as Resource;
    const [emailTopic] =
      resources.find(([id, r]) => r.Type === 'AWS::SNS::Topic' && /NotificationsTopic/.test(id)) ?? [];
    const join = (machine.Properties.DefinitionString as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const text = join
      .map((p) => (typeof p === 'string' ? p : `REF:${(p as { Ref?: string }).Ref ?? 'other'}`))
      .join('');
    const states = (JSON.parse(text) as { States: Record<string, { Resource?: string; Parameters?: unknown }> }).States;
    expect(states.Notify.Resource).toMatch(/:states:::sns:publish$/);
    expect(states.Notify.Parameters).toMatchObject({ TopicArn: `REF:${emailTopic}` });
    // Nothing of the paging path (bus, rules, destinations) is in the state machine's way.
    expect(text).not.toMatch(/events:putEvents|ApiDestination|PagerDuty|Opsgenie/i);
  });
});
