import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../lib/config.js';
import { synth } from '../support/synth.js';

function messageOf(config: unknown): string {
  try {
    synth(config);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('synth accepted a bad configuration');
}

describe('configuration errors fail synth and name the key', () => {
  it('names a bad class mode and the allowed modes', () => {
    expect(messageOf({ modes: { 'sandbox-image': 'fast' } })).toContain(
      'pod-doctor.modes.sandbox-image: "fast" is not allowed; allowed values: observe | approve | auto',
    );
  });

  it('names a pull-through cache secret that is not an ecr-pullthroughcache/ secret', () => {
    const m = messageOf({
      clusters: [
        {
          name: 'prod-eu',
          remediation: {
            pullThroughCache: { credentialArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:dockerhub-AbCd' },
          },
        },
      ],
    });
    expect(m).toContain('pod-doctor.clusters[0].remediation.pullThroughCache.credentialArn');
    expect(m).toContain('ecr-pullthroughcache/');
  });

  it('names a chat or pager setting that AWS would refuse, and what it accepts', () => {
    expect(messageOf({ channels: { slack: [{ workspaceId: 'acme-workspace', channelId: 'C0123ABCD' }] } })).toContain(
      'pod-doctor.channels.slack[0].workspaceId: must be a Slack workspace id such as T0123ABCD',
    );
    expect(
      messageOf({
        channels: { pagerDuty: { routingKeySecretArn: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:pd' } },
      }),
    ).toContain(
      'pod-doctor.channels.pagerDuty.routingKeySecretArn: must be the complete ARN (with its 6-character suffix)',
    );
    expect(messageOf({ channels: { discord: [] } })).toContain(
      'pod-doctor.channels: unknown key(s) discord; allowed keys: slack | teams | pagerDuty | opsgenie',
    );
  });

  it('names an unknown failure class and lists the known ones', () => {
    const m = messageOf({ modes: { 'pause-image': 'auto' } });
    expect(m).toContain('pod-doctor.modes: unknown key(s) pause-image');
    expect(m).toContain('sandbox-image | pid-exhaustion');
  });

  it('names a log retention CloudWatch does not accept and the values it does', () => {
    expect(messageOf({ logRetentionDays: 10 })).toMatch(
      /pod-doctor\.logRetentionDays: 10 is not allowed; allowed values: 1 \| 3 \| 5/,
    );
  });

  it('names a node-group share outside 0..1', () => {
    expect(messageOf({ limits: { maxNodeGroupShareAffected: 1.5 } })).toContain(
      'pod-doctor.limits.maxNodeGroupShareAffected',
    );
  });

  it('names a cluster entry with an invalid name by its index', () => {
    expect(messageOf({ clusters: [{ name: 'ok' }, { name: 'has space' }] })).toContain('pod-doctor.clusters[1].name');
  });

  it('rejects a typo in a top-level key instead of ignoring it', () => {
    expect(messageOf({ cluster: [] })).toContain('pod-doctor: unknown key(s) cluster; allowed keys: clusters');
  });

  it('rejects a cluster listed twice', () => {
    expect(messageOf({ clusters: [{ name: 'a' }, { name: 'a' }] })).toContain('cluster "a" is listed twice');
  });

  it('reports every problem at once', () => {
    const m = messageOf({ notificationEmails: ['not-an-email'], limits: { incidentWindowMinutes: 0 } });
    expect(m).toContain('pod-doctor.notificationEmails[0]: must be an email address');
    expect(m).toContain('pod-doctor.limits.incidentWindowMinutes');
  });

  it('accepts JSON passed with -c and fills the defaults', () => {
    const c = parseConfig('{"modes":{"pid-exhaustion":"observe"}}');
    expect(c.modes['pid-exhaustion']).toBe('observe');
    expect(c.modes['sandbox-image']).toBe('auto');
    expect(c.limits.incidentWindowMinutes).toBe(30);
  });
});
