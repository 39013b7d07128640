import { describe, expect, it } from 'vitest';
import type { DoorDeps } from '../../lambdas/aws/door/executor.js';
import { depsFor } from '../../lambdas/aws/door/member-reach.js';
import { type AssumeParams, SpokeBroker, SpokeUnreachableError } from '../../lambdas/aws/runtime/credential-broker.js';
import type { ActionRequest } from '../../lambdas/core/door/action-request.js';
import {
  doorSourceIdentity,
  isMemberReach,
  spokeDocumentName,
  spokeDoorRoleArn,
  spokeSessionName,
} from '../../lambdas/core/fleet/fleet-reach.js';

const STS_TEXT = /^[\w+=,.@-]{2,64}$/;

describe('what the hub calls itself in a member account', () => {
  it('a session name names the incident and the action, within STS’s 64 characters and alphabet', () => {
    expect(spokeSessionName('a1b2c3d4e5f60718-1796033100', 'repair-pause-image')).toBe(
      'a1b2c3d4e5f60718-1796033100.repair-pause-image',
    );
    const long = spokeSessionName(`${'x'.repeat(70)}/$weird name`, 'restart-runtime');
    expect(long).toMatch(STS_TEXT);
    expect(spokeSessionName('', '')).toMatch(STS_TEXT);
  });

  it('the door’s source identity carries its prefix and the incident, within STS’s limits', () => {
    expect(doorSourceIdentity('a1b2c3d4e5f60718-1796033100')).toBe('pod-doctor-door-a1b2c3d4e5f60718-1796033100');
    expect(doorSourceIdentity('x'.repeat(200))).toMatch(STS_TEXT);
  });

  it('names and ARNs a member’s door role and documents by the fleet’s name', () => {
    expect(spokeDoorRoleArn('aws', 'eks-fleet', '222222222222', 'eu-west-1')).toBe(
      'arn:aws:iam::222222222222:role/pod-doctor-eks-fleet-door-eu-west-1',
    );
    expect(spokeDocumentName('eks-fleet', 'repairPauseImage')).toBe('pod-doctor-eks-fleet-repairPauseImage');
  });

  it('the hub’s own account, or none named, is not a member reach', () => {
    expect(isMemberReach({}, '111122223333')).toBe(false);
    expect(isMemberReach({ account: null }, '111122223333')).toBe(false);
    expect(isMemberReach({ account: '111122223333' }, '111122223333')).toBe(false);
    expect(isMemberReach({ account: '222222222222' }, '111122223333')).toBe(true);
  });
});

describe('the credential broker', () => {
  const where = { account: '222222222222', region: 'us-east-1' };
  const broker = (assume: (p: AssumeParams) => Promise<{ expiration?: Date }>, now = () => 0) => {
    const asked: AssumeParams[] = [];
    const b = new SpokeBroker(
      {
        fleet: 'eks-fleet',
        partition: 'aws',
        now,
        assume: (p) => async () => {
          asked.push(p);
          return { accessKeyId: 'ASIA', secretAccessKey: 'x', ...(await assume(p)) };
        },
      },
      (w, credentials) => ({ w, credentials }),
    );
    return { b, asked };
  };

  it('assumes the member’s role of the purpose with the fleet’s external id, the session’s name and source identity', async () => {
    const { b, asked } = broker(async () => ({ expiration: new Date(3_600_000) }));
    await b.clients(where, { role: 'door', name: 'inc.repair-pause-image', sourceIdentity: 'pod-doctor-door-inc' });
    await b.clients(where, { role: 'read', name: 'inc.check-network' });
    expect(asked).toEqual([
      {
        RoleArn: 'arn:aws:iam::222222222222:role/pod-doctor-eks-fleet-door-us-east-1',
        RoleSessionName: 'inc.repair-pause-image',
        ExternalId: 'eks-fleet',
        SourceIdentity: 'pod-doctor-door-inc',
        DurationSeconds: 3600,
      },
      {
        RoleArn: 'arn:aws:iam::222222222222:role/pod-doctor-eks-fleet-spoke-us-east-1',
        RoleSessionName: 'inc.check-network',
        ExternalId: 'eks-fleet',
        DurationSeconds: 3600,
      },
    ]);
  });

  it('reuses a session while it lasts and asks STS again once it nears its end', async () => {
    let t = 0;
    const { b, asked } = broker(
      async () => ({ expiration: new Date(t + 3_600_000) }),
      () => t,
    );
    const session = { role: 'door' as const, name: 'inc.probe-node' };
    const first = await b.clients(where, session);
    t = 30 * 60_000;
    expect(await b.clients(where, session)).toBe(first);
    expect(asked).toHaveLength(1);
    t = 58 * 60_000;
    expect(await b.clients(where, session)).not.toBe(first);
    expect(asked).toHaveLength(2);
  });

  it('a refusal is known before any client exists: SpokeUnreachableError names the account, Region and why', async () => {
    const denied = Object.assign(new Error('not authorized to perform: sts:AssumeRole'), { name: 'AccessDenied' });
    const { b } = broker(async () => {
      throw denied;
    });
    const e = await b.clients(where, { role: 'read', name: 'x.y' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SpokeUnreachableError);
    expect((e as Error).message).toBe(
      'could not assume pod-doctor’s role in account 222222222222 in us-east-1: AccessDenied: not authorized to perform: sts:AssumeRole'.replace(
        '’',
        "'",
      ),
    );
  });
});

describe('the door’s clients for where a request acts', () => {
  const request = (account?: string): ActionRequest =>
    ({
      slot: 'act',
      action: { kind: 'probe-node', node: { instanceId: 'i-0a1b2c3d4e5f60718' } },
      disposition: 'auto',
      description: '',
      incident: { id: 'inc', key: 'k', class: 'sandbox-image', cluster: 'payments-prod' },
      execution: 'arn',
      scope: { region: 'eu-west-1', ...(account ? { account } : {}) },
    }) as ActionRequest;
  const hub = { ssm: 'hub-ssm', config: { documents: { probeNode: 'hub-doc' } } } as unknown as DoorDeps;

  it('this account’s request keeps the door’s own clients', async () => {
    expect(await depsFor(request(), hub)).toEqual({ deps: hub });
  });

  it('a deployment that is no fleet hub refuses a request naming another account', async () => {
    expect(await depsFor(request('222222222222'), hub)).toEqual({
      refusal: 'account 222222222222: this deployment is no fleet hub, it acts in its own account only: nothing done',
    });
  });

  it('a member’s request acts with the member’s clients and documents, the kill switch read from the hub, no account remedies', async () => {
    const seen: unknown[] = [];
    const deps = {
      ...hub,
      accountRemedies: {},
      fleet: {
        hubAccount: '111122223333',
        reach: async (where: unknown, session: unknown) => {
          seen.push([where, session]);
          return { ssm: 'member-ssm', aws: 'member-aws', cluster: 'member-cluster', documents: { probeNode: 'm-doc' } };
        },
      },
    } as unknown as DoorDeps;
    const r = await depsFor(request('222222222222'), deps);
    expect(seen).toEqual([
      [
        { account: '222222222222', region: 'eu-west-1' },
        { role: 'door', name: 'inc.probe-node', sourceIdentity: 'pod-doctor-door-inc' },
      ],
    ]);
    expect(r).toMatchObject({
      deps: { ssm: 'member-ssm', hubSsm: 'hub-ssm', aws: 'member-aws', config: { documents: { probeNode: 'm-doc' } } },
    });
    expect((r as { deps: DoorDeps }).deps.accountRemedies).toBeUndefined();
  });
});
