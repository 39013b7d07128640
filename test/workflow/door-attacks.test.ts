import { afterEach, beforeAll, describe, expect, it } from 'vitest';
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
import { summaryOf } from './support.js';

/**
 * Attacks on the action door through the synthesized state machine and the real handlers. Each
 * names what it tries and what the door does instead; door-bypass.test.ts runs the same attacks
 * with the gate taken out and shows they then succeed.
 */

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

describe('attacks on the door', { timeout: 120_000 }, () => {
  it('kill switch switched on while a remedy waits for approval: the approved attach is not made, nothing restarts', async () => {
    const { r, cluster, account, outcome } = await tracked(
      attack({
        cls: 'cni-permissions',
        mode: 'approve',
        tier: 'approve',
        approval: 'approve',
        killSwitchDuringApproval: 'on',
        account: cniAccount(),
      }),
    );
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Door: ask');
    expect(cniAttached(account)).toBe(false);
    expect(cluster.writes()).toEqual([]);
    expect(outcome).toMatch(/kill switch is on/);
    expect(r.sns.at(-1)?.subject).toBe(summaryOf(r).subject);
  });

  it("a tenant's pod stuck on the node is no proof: aws-node Ready (ipamd answers), aws-node is not restarted", async () => {
    const { r, cluster } = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', cluster: awsNodeReady() }),
    );
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('Remedy: request');
    expect(cluster.writes()).toEqual([]);
    // The door read aws-node's own pod and found nothing to restart; the stuck pods were not its proof.
    expect(summaryOf(r).message).toMatch(
      /\n {2}restart-aws-node: not-needed\n.*: aws-node aws-node-7xk2p on \S+ is Ready: ipamd answers \(pods stuck on the node are not aws-node's evidence\)\n/,
    );
  });

  it("aws-node restarts hold the node's cooldown: the same node 31 minutes later is not restarted again", async () => {
    const table = await freshIncidentTable(remediationTemplate());
    const first = await tracked(attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0 }));
    expect(first.cluster.writes()).toEqual([AWS_NODE_RESTART]);
    const again = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0 + 31 * 60_000 }),
    );
    expect(again.r.status, again.r.failures.join('\n')).toBe('SUCCEEDED');
    expect(again.cluster.writes()).toEqual([]);
    expect(again.outcome).toMatch(/cooldown/);
  });

  it('aws-node restarts count toward the hourly cap: with a cap of 1 the second restart (another hour not yet begun) is refused', async () => {
    const table = await freshIncidentTable(remediationTemplate());
    const limits = { maxNodeActionsPerClusterPerHour: 1 };
    const first = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0, limits }),
    );
    expect(first.cluster.writes()).toEqual([AWS_NODE_RESTART]);
    const again = await tracked(
      attack({ cls: 'ipamd-unavailable', mode: 'auto', tier: 'auto', table, now: T0 + 20 * 60_000, limits }),
    );
    expect(again.cluster.writes()).toEqual([]);
    expect(again.outcome).toMatch(/hourly cap: 1 node actions in this cluster in the last hour/);
  });
});
