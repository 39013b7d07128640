import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { nodeCooldownKey } from '../../lambdas/aws/incident-table.js';
import { ActBlockedError, actGate, actGateInputSchema } from '../../lambdas/aws/workflow/act-gate.js';
import {
  CapReachedError,
  CooldownHeldError,
  releaseReservation,
  reserveAction,
} from '../../lambdas/aws/workflow/reservations.js';
import type { WorkflowConfig } from '../../lambdas/core/workflow-config.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

/** Issue 12, finding 7: the hourly cap is reserved with conditional writes, against dynalite. */
const NOW = Date.parse('2026-11-29T10:05:00Z');
let table: LocalTable;
beforeEach(async () => {
  table = await freshTable('incidents');
});
const deps = (now = NOW) => ({ ddb: table.client, tableName: table.name, now });
const node = (k: number) => `i-0a1b2c3d4e5f607${String(k).padStart(2, '0')}`;
const reserve = (k: number, o: { execution?: string; action?: string; cap?: number; node?: string } = {}) =>
  reserveAction(
    {
      cluster: 'prod-eu',
      instanceId: o.node ?? node(k),
      class: 'sandbox-image',
      execution: o.execution ?? `arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:run-${k}`,
      action: o.action ?? 'repair-pause-image',
      cap: o.cap ?? 5,
      cooldownMinutes: 60,
    },
    deps(),
  );
const settled = async <T>(ps: Promise<T>[]) => {
  const all = await Promise.allSettled(ps);
  return {
    won: all.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<T>).value),
    lost: all.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as Error),
  };
};

describe('hourly cap: a slot reserved with a conditional write before SendCommand', { timeout: 30_000 }, () => {
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
    const later = await reserveAction(
      {
        cluster: 'prod-eu',
        instanceId: node(6),
        class: 'sandbox-image',
        execution: 'run-6',
        action: 'repair-pause-image',
        cap: 5,
        cooldownMinutes: 60,
      },
      deps(NOW + 3_600_000),
    );
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
    await reserve(0, { execution, action: 'collect-logs' });
    const followUp = await reserve(0, { execution, action: 'restart-runtime' });
    expect(followUp.slotHolder).toBe(`${execution}#restart-runtime`);
  });
});

describe('actGate: the one gate right before Act', () => {
  const config = {
    tableName: '',
    killSwitchParameterName: '/pod-doctor/kill-switch',
    limits: {
      maxNodeActionsPerClusterPerHour: 5,
      maxNodeGroupShareAffected: 0.3,
      nodeCooldownMinutes: 60,
      incidentWindowMinutes: 10,
    },
  } as unknown as WorkflowConfig;
  const ssmWith = (value: string) => {
    const ssm = new SSMClient({ region: 'eu-west-1' });
    mockClient(ssm)
      .on(GetParameterCommand)
      .resolves({ Parameter: { Value: value } });
    return ssm;
  };
  const failingProbe = {
    status: 'Success',
    stdout: JSON.stringify({ findings: [{ id: 'node.sandbox-image.present', status: 'fail', summary: 'missing' }] }),
  };
  const state = (over: Record<string, unknown> = {}) =>
    actGateInputSchema.parse({
      class: 'sandbox-image',
      cluster: 'prod-eu',
      execution: { arn: 'arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:x' },
      node: { instanceId: node(0) },
      plan: { nodeAction: { id: 'repair-pause-image' }, nodeGroupSize: 10 },
      diagnosis: [{ findings: [] }, { probe: failingProbe }],
      ...over,
    });
  const gate = (i = state(), value = 'off') =>
    actGate(i, {
      ddb: table.client,
      ssm: ssmWith(value),
      config: { ...config, tableName: table.name },
      now: () => NOW,
    });

  it('passes and reserves when nothing blocks: the stamp for the command steps', async () => {
    const out = await gate();
    expect(out).toMatchObject({ sentAt: '2026-11-29T10:05:00.000Z', counter: { n: 0 } });
    expect(await table.get(out.gate.reservation.slot)).toMatchObject({ holder: out.gate.reservation.slotHolder });
  });

  it('refuses, with the reason, for the kill switch, a cooldown, the breaker, or a node that no longer fails', async () => {
    await expect(gate(state(), 'on')).rejects.toThrow(new ActBlockedError('kill switch is on'));
    await table.put({ ...nodeCooldownKey(node(0), 'sandbox-image'), at: NOW - 10 * 60_000 });
    await expect(gate()).rejects.toThrow(/^cooldown: pod-doctor acted on this node for sandbox-image/);
    await table.put({ ...nodeCooldownKey(node(0), 'sandbox-image'), at: 0 });
    for (const n of [1, 2, 3, 4])
      await table.put({ pk: 'ACTIVE#prod-eu#sandbox-image', sk: `NODE#${node(n)}`, at: NOW - 60_000 });
    await expect(gate()).rejects.toThrow(/^breaker: 4\/10 nodes/);
    const healthy = { status: 'Success', stdout: JSON.stringify({ findings: [] }) };
    await expect(
      gate(state({ plan: { nodeAction: { id: 'repair-pause-image' } }, recheck: { result: healthy } })),
    ).rejects.toThrow('the node no longer fails: pause image present and pinned');
    // Nothing was reserved by a refused gate.
    expect((await table.scan()).filter((x) => String(x.pk).startsWith('CAP#'))).toEqual([]);
  });
});
