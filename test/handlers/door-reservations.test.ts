import { beforeEach, describe, expect, it } from 'vitest';
import {
  CapReachedError,
  CooldownHeldError,
  releaseReservation,
  reserve as reserveChange,
} from '../../lambdas/aws/door/reservations.js';
import { nodeCooldownKey, targetCooldownKey } from '../../lambdas/core/contract/incident-table.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

/**
 * The door's reservations against dynalite: the hourly cap and the cooldowns of what a change touches
 * (a node for a class, a target), reserved with conditional writes right before the change.
 */
const NOW = Date.parse('2026-11-29T10:05:00Z');
let table: LocalTable;
beforeEach(async () => {
  table = await freshTable('incidents');
});
const deps = (now = NOW) => ({ ddb: table.client, tableName: table.name, now });
const node = (k: number) => `i-0a1b2c3d4e5f607${String(k).padStart(2, '0')}`;
const execution = (k: number) => `arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:run-${k}`;
const reserve = (
  k: number,
  o: { execution?: string; slot?: string; cap?: number; node?: string; target?: string } = {},
  now = NOW,
) => {
  const holder = o.execution ?? execution(k);
  return reserveChange(
    {
      cluster: 'prod-eu',
      cap: o.cap ?? 5,
      slotHolder: `${holder}#${o.slot ?? 'act'}`,
      cooldowns: [
        o.target
          ? { key: targetCooldownKey(o.target), holder, minutes: 60, what: o.target }
          : {
              key: nodeCooldownKey(o.node ?? node(k), 'sandbox-image'),
              holder,
              minutes: 60,
              what: 'this node for sandbox-image',
            },
      ],
    },
    deps(now),
  );
};
const settled = async <T>(ps: Promise<T>[]) => {
  const all = await Promise.allSettled(ps);
  return {
    won: all.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<T>).value),
    lost: all.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as Error),
  };
};

describe('hourly cap: a slot reserved with a conditional write right before the change', { timeout: 30_000 }, () => {
  it('8 racing reservations with a cap of 5: exactly 5 win, 3 are refused', async () => {
    const { won, lost } = await settled(Array.from({ length: 8 }, (_, k) => reserve(k)));
    expect(won).toHaveLength(5);
    expect(new Set(won.map((r) => r.slot.sk)).size).toBe(5);
    expect(lost).toHaveLength(3);
    for (const e of lost) expect(e).toBeInstanceOf(CapReachedError);
  });

  it('a retried call of the same holder takes no second slot', async () => {
    const a = await reserve(0);
    const b = await reserve(0);
    expect(b.slot).toEqual(a.slot);
    expect((await table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu')).toHaveLength(1);
  });

  it('a released slot is free again; a slot whose hour is over is free again', async () => {
    const held = await Promise.all(Array.from({ length: 5 }, (_, k) => reserve(k)));
    await expect(reserve(5)).rejects.toBeInstanceOf(CapReachedError);
    await releaseReservation(held[2], deps());
    expect((await reserve(5)).slot).toEqual(held[2].slot);
    const later = await reserve(6, {}, NOW + 3_600_000);
    expect(later.slot.sk).toMatch(/^SLOT#/);
  });

  it('release gives back only its own slot, never one another execution holds by now', async () => {
    const mine = await reserve(0, { cap: 1 });
    await releaseReservation(mine, deps());
    const theirs = await reserve(1, { cap: 1 });
    await releaseReservation(mine, deps());
    expect(await table.get(theirs.slot)).toMatchObject({ holder: theirs.slotHolder });
  });
});

describe('cooldown claimed with the slot', () => {
  it('two executions racing for one node: one acts, the other is refused and its slot given back', async () => {
    const { won, lost } = await settled([reserve(0, { node: node(9) }), reserve(1, { node: node(9) })]);
    expect(won).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(CooldownHeldError);
    const slots = (await table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder);
    expect(slots).toHaveLength(1);
  });

  it('the follow-up of the same execution may act on the node it claimed', async () => {
    const execution = 'arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:pid';
    await reserve(0, { execution, slot: 'act' });
    const followUp = await reserve(0, { execution, slot: 'followUp' });
    expect(followUp.slotHolder).toBe(`${execution}#followUp`);
  });

  it('a target (a role, a security group, aws-node on a node) has a cooldown of its own, across classes', async () => {
    await reserve(0, { target: 'role/eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF' });
    await expect(reserve(1, { target: 'role/eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF' })).rejects.toThrow(
      'cooldown: another execution acted on role/eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF less than 60 min ago',
    );
    // The refused reservation gave its cap slot back.
    const slots = (await table.scan()).filter((x) => String(x.pk) === 'CAP#prod-eu' && x.holder);
    expect(slots).toHaveLength(1);
  });
});
