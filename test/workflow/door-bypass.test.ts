import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshIncidentTable, warmUpRuntime } from '../../local/local-workflow.js';
import {
  type AttackRun,
  AWS_NODE_RESTART,
  attack,
  awsNodeReady,
  cniAccount,
  cniAttached,
  remediationTemplate,
  T0,
} from './door-attacks.js';

/**
 * The attacks of door-attacks.test.ts with the door's checks taken out: its gate still asks for
 * approvals but reads neither the kill switch nor the cause (aws-node's own pod), and nothing is
 * reserved against the cap or a cooldown. Every attack then succeeds, so each attack test asserts what only the door gives.
 */
vi.mock('../../lambdas/core/door/gate.js', async (original) => {
  const real = await original<typeof import('../../lambdas/core/door/gate.js')>();
  return {
    ...real,
    // The approval flow stays; the kill switch and the cause are no longer read.
    gate: (i: Parameters<typeof real.gate>[0]) =>
      real.gate({
        ...i,
        killSwitch: { on: false, readable: true },
        cause: { status: 'holds', reason: 'the door bypassed' },
      }),
  };
});
vi.mock('../../lambdas/core/policy/cause-evidence.js', async (original) => ({
  ...(await original<typeof import('../../lambdas/core/policy/cause-evidence.js')>()),
  awsNodeCause: () => ({ status: 'holds', reason: 'the door bypassed' }),
}));
vi.mock('../../lambdas/aws/door/reservations.js', async (original) => ({
  ...(await original<typeof import('../../lambdas/aws/door/reservations.js')>()),
  reserve: async (i: { slotHolder: string }) => ({
    slotHolder: i.slotHolder,
    slot: { pk: 'NONE', sk: 'NONE' },
    cooldowns: [],
  }),
  releaseReservation: async () => undefined,
}));

beforeAll(() => warmUpRuntime(remediationTemplate()));

const runs: AttackRun[] = [];
const tracked = async (p: Promise<AttackRun>) => {
  const run = await p;
  runs.push(run);
  return run;
};
afterEach(async () => {
  await Promise.all(runs.splice(0).map((x) => x.cluster.stop()));
});

describe('the same attacks with the door bypassed succeed', { timeout: 120_000 }, () => {
  it('the kill switch switched on during the approval wait no longer stops the attach', async () => {
    const { r, account, cluster } = await tracked(
      attack({
        cls: 'cni-permissions',
        mode: 'approve',
        tier: 'approve',
        approval: 'approve',
        killSwitchDuringApproval: 'on',
        account: cniAccount(),
      }),
    );
    expect(r.states).toContain('Door: ask');
    expect(cniAttached(account)).toBe(true);
    expect(cluster.writes()).toEqual([AWS_NODE_RESTART]);
  });

  it("a tenant's stuck pod gets aws-node restarted although aws-node is Ready", async () => {
    const { cluster } = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', cluster: awsNodeReady() }),
    );
    expect(cluster.writes()).toEqual([AWS_NODE_RESTART]);
  });

  it('the same node is restarted again 31 minutes later, past a cap of 1', async () => {
    const table = await freshIncidentTable(remediationTemplate());
    const limits = { maxNodeActionsPerClusterPerHour: 1 };
    await tracked(attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0, limits }));
    const again = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0 + 31 * 60_000, limits }),
    );
    expect(again.cluster.writes()).toEqual([AWS_NODE_RESTART]);
  });
});
