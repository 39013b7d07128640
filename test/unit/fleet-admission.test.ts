import { describe, expect, it } from 'vitest';
import { forwardSignals, MAX_DETAIL_BYTES, toBatches } from '../../lambdas/aws/fleet/spoke-forwarder.js';
import {
  admitFleetEvent,
  FleetConfigError,
  type FleetEvent,
  fleetMembers,
  inAccount,
  SPOKE_DETAIL_TYPE,
  SPOKE_SOURCE,
  spokeBatchSchema,
} from '../../lambdas/core/fleet/fleet.js';
import type { IncidentCandidate } from '../../lambdas/core/incident/incidents.js';
import { corpus, fixture, subscriptionEvent } from '../support/fixtures.js';

const MEMBERS = [
  { account: '222222222222', regions: ['eu-west-1', 'us-east-1'] },
  { account: '333333333333', regions: ['eu-west-1'] },
];

const candidate: IncidentCandidate = {
  key: 'payments-prod|node:i-0abc|sandbox-image',
  cluster: 'payments-prod',
  class: 'sandbox-image',
  kind: 'failure',
  scope: 'node',
  scopeValue: 'i-0abc',
  cause: 'sandbox image pull unauthorized',
  count: 3,
  firstSeen: 1_764_410_000_000,
  lastSeen: 1_764_410_060_000,
  entities: { instanceId: 'i-0abc' },
  pods: ['default/web-1'],
  signals: ['dataplane-logs'],
  samples: [
    'failed to get sandbox image "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5": 401 Unauthorized',
  ],
};

const spokeEvent = (sender: string, region: string, claims: { account: string; region: string }): FleetEvent => ({
  source: SPOKE_SOURCE,
  'detail-type': SPOKE_DETAIL_TYPE,
  account: sender,
  region,
  detail: { ...claims, candidates: [candidate], rejects: [], received: 3 },
});

describe('the hub admits an event only when its claims are its sender’s', () => {
  it('a member’s batch about itself is admitted, with the account and Region EventBridge stamped', () => {
    const a = admitFleetEvent(
      spokeEvent('222222222222', 'us-east-1', { account: '222222222222', region: 'us-east-1' }),
      MEMBERS,
    );
    expect(a).toMatchObject({ admitted: true, kind: 'spoke', account: '222222222222', region: 'us-east-1' });
  });

  it('a spoke’s batch naming another account is refused, saying who sent it and what it claimed', () => {
    const a = admitFleetEvent(
      spokeEvent('222222222222', 'eu-west-1', { account: '333333333333', region: 'eu-west-1' }),
      MEMBERS,
    );
    expect(a).toEqual({
      admitted: false,
      account: '222222222222',
      region: 'eu-west-1',
      reason: 'batch claims 333333333333 in eu-west-1 but was sent by 222222222222 in eu-west-1',
    });
  });

  it('a batch naming another Region of the same account is refused', () => {
    const a = admitFleetEvent(
      spokeEvent('222222222222', 'eu-west-1', { account: '222222222222', region: 'us-east-1' }),
      MEMBERS,
    );
    expect(a.admitted).toBe(false);
  });

  it('an account the hub no longer acts in (removed), or a Region it does not act in, is refused', () => {
    expect(
      admitFleetEvent(
        spokeEvent('444444444444', 'eu-west-1', { account: '444444444444', region: 'eu-west-1' }),
        MEMBERS,
      ),
    ).toMatchObject({
      admitted: false,
      reason: 'account 444444444444 in eu-west-1 is not a member the hub acts in',
    });
    expect(
      admitFleetEvent(
        spokeEvent('333333333333', 'us-east-1', { account: '333333333333', region: 'us-east-1' }),
        MEMBERS,
      ).admitted,
    ).toBe(false);
  });

  it('an unreadable batch (a class that does not exist, an oversized sample) is refused, never half-read', () => {
    const bad = spokeEvent('222222222222', 'eu-west-1', { account: '222222222222', region: 'eu-west-1' });
    const detail = bad.detail as { candidates: Record<string, unknown>[] };
    expect(
      admitFleetEvent({ ...bad, detail: { ...detail, candidates: [{ ...candidate, class: 'rm -rf' }] } }, MEMBERS)
        .admitted,
    ).toBe(false);
    expect(
      admitFleetEvent(
        { ...bad, detail: { ...detail, candidates: [{ ...candidate, samples: ['x'.repeat(2001)] }] } },
        MEMBERS,
      ).admitted,
    ).toBe(false);
  });

  it('a CloudTrail event is admitted only from the account that recorded it (recipientAccountId = account)', () => {
    const ct = fixture<FleetEvent>('events/assign-prefix-insufficient-cidr.json');
    const asMember = {
      ...ct,
      account: '222222222222',
      detail: { ...(ct.detail as object), recipientAccountId: '222222222222' },
    };
    expect(admitFleetEvent(asMember, MEMBERS)).toMatchObject({
      admitted: true,
      kind: 'cloudtrail',
      account: '222222222222',
    });
    const forged = { ...asMember, detail: { ...(asMember.detail as object), recipientAccountId: '333333333333' } };
    expect(admitFleetEvent(forged, MEMBERS)).toMatchObject({
      admitted: false,
      reason: 'CloudTrail event recorded in 333333333333 was sent by 222222222222',
    });
  });

  it('another source is refused', () => {
    expect(
      admitFleetEvent(
        { source: 'my.app', 'detail-type': 'x', account: '222222222222', region: 'eu-west-1', detail: {} },
        MEMBERS,
      ).admitted,
    ).toBe(false);
  });
});

describe('incidents of fleet members', () => {
  it('the same cluster name, scope and class in two accounts are two incidents', () => {
    const a = inAccount(candidate, '222222222222', 'eu-west-1');
    const b = inAccount(candidate, '444444444444', 'eu-west-1');
    expect(a.key).not.toBe(b.key);
    expect(a).toMatchObject({ account: '222222222222', region: 'eu-west-1' });
  });

  it('the member list refuses a malformed account, a duplicate and a non-Region', () => {
    expect(() => fleetMembers([{ account: '2222', regions: ['eu-west-1'] }])).toThrow(FleetConfigError);
    expect(() => fleetMembers([...MEMBERS, MEMBERS[0]])).toThrow(/listed twice/);
    expect(() => fleetMembers([{ account: '222222222222', regions: ['europe'] }])).toThrow(/not a Region/);
  });
});

describe('the spoke forwards what it read, in batches the hub admits', () => {
  it('classified lines become candidates claiming the spoke’s own account and Region; the hub schema reads them', async () => {
    const put: string[] = [];
    // A real kubelet line of the corpus (its source URL is in corpus.jsonl).
    const { line } = corpus().find(
      (c) => c.class === 'sandbox-image' && c.line.includes('pause:3.5": failed to pull'),
    ) as { line: string };
    const outcome = await forwardSignals(
      subscriptionEvent([line, 'healthy line', line], { logGroup: '/aws/containerinsights/payments-prod/dataplane' }),
      {
        bus: { put: async (e) => void put.push(e.detail) },
        config: {
          logGroupClusters: { '/aws/containerinsights/payments-prod/dataplane': 'payments-prod' },
          accountScope: 'account',
          trustedSandboxImages: [],
        },
        now: () => Date.parse('2026-11-29T10:05:00Z'),
        account: '222222222222',
        region: 'eu-west-1',
      },
    );
    expect(outcome).toMatchObject({ received: 3, candidates: 1, batches: 1 });
    const batch = spokeBatchSchema.parse(JSON.parse(put[0]));
    expect(batch).toMatchObject({ account: '222222222222', region: 'eu-west-1', received: 3 });
    expect(batch.candidates[0]).toMatchObject({ cluster: 'payments-prod', class: 'sandbox-image', count: 2 });
  });

  it('many candidates split into events of at most 240 KB and 100 candidates, none lost', () => {
    const many = Array.from({ length: 250 }, (_, i) => ({ ...candidate, key: `k${i}`, samples: ['y'.repeat(1900)] }));
    const batches = toBatches(many, [{ reason: 'unreadable', record: 'z'.repeat(16_000) }], 300, {
      account: '222222222222',
      region: 'eu-west-1',
    });
    expect(batches.reduce((n, b) => n + b.candidates.length, 0)).toBe(250);
    expect(batches.reduce((n, b) => n + b.rejects.length, 0)).toBe(1);
    for (const b of batches) {
      expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThanOrEqual(MAX_DETAIL_BYTES);
      expect(spokeBatchSchema.safeParse(b).success).toBe(true);
    }
    expect(batches[0].received).toBe(300);
  });

  it('nothing read, nothing sent', () => {
    expect(toBatches([], [], 5, { account: '222222222222', region: 'eu-west-1' })).toEqual([]);
  });
});
