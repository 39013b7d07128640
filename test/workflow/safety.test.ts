import { beforeAll, describe, expect, it } from 'vitest';
import { nodeCooldownKey } from '../../lambdas/core/contract/incident-table.js';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import { DOCUMENTS, freshIncidentTable, runWorkflow, synthesizedDefinition } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { incident } from './support.js';

/** Issue 12 on the synthesized state machine: log text chooses neither the image nor the node. */
let definition: Record<string, unknown>;
beforeAll(() => {
  definition = synthesizedDefinition();
});
const run = (i: Record<string, unknown>, o: Partial<Parameters<typeof runWorkflow>[1]> = {}) =>
  runWorkflow(i, { account: healthyAccount(), definition, node: simulatedPauseNode(), ...o });
const repairs = (r: Awaited<ReturnType<typeof runWorkflow>>) =>
  r.commands.filter((c) => c.document === DOCUMENTS.repairPauseImage);
const summary = (r: Awaited<ReturnType<typeof runWorkflow>>) => (r.output.summary ?? {}) as { message: string };

describe('finding 1: the repair image is the node configuration, not the log', { timeout: 30_000 }, () => {
  it('an incident naming evil.example.com/x/pause:1 never sends that image; no repair runs', async () => {
    const r = await run(incident({ entities: { instanceId: NODE_ID, sandboxImage: 'evil.example.com/x/pause:1' } }));
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(JSON.stringify(r.commands)).not.toContain('evil.example.com');
    expect(repairs(r)).toEqual([]);
    expect(summary(r).message).toMatch(/evil.example.com\/x\/pause:1 is not this node's sandbox image/);
  });

  it('the image sent is the one the probe read from the node', async () => {
    const r = await run(incident({ entities: { instanceId: NODE_ID } }));
    expect(repairs(r).map((c) => c.parameters.Image)).toEqual([['localhost/kubernetes/pause:latest']]);
  });
});

describe('finding 2: the node comes from the envelope and must be in the incident cluster', { timeout: 30_000 }, () => {
  it('an incident without an envelope node targets nothing and says why', async () => {
    const r = await run(
      incident({ scope: 'cluster', scopeValue: 'unknown-node', entities: { pod: 'i-0fedcba9876543210' } }),
    );
    expect(r.commands).toEqual([]);
    expect(summary(r).message).toMatch(/diagnose only: no node from the record envelope/);
  });

  it('finding 12: an instance tagged for another cluster is neither probed nor repaired', async () => {
    const account = healthyAccount();
    account.instances[0].Tags = [{ Key: 'eks:cluster-name', Value: 'other-team' }];
    const r = await run(incident(), { account });
    expect(r.states).toContain('No node');
    expect(r.commands).toEqual([]);
    expect(summary(r).message).toMatch(/tagged for cluster other-team, not prod-eu: diagnose only/);
  });
});

describe('finding 3: a pause-named tenant image spends no action', { timeout: 30_000 }, () => {
  it('x.io/eks/pause:1 on a node whose own pause image is fine: no repair, the cap untouched', async () => {
    const r = await run(incident({ entities: { instanceId: NODE_ID, sandboxImage: 'x.io/eks/pause:1' } }));
    expect(repairs(r)).toEqual([]);
    expect((await r.table.scan()).filter((i) => String(i.sk).startsWith('ACTION#'))).toEqual([]);
    expect(summary(r).message).toMatch(/x.io\/eks\/pause:1 is not this node's sandbox image/);
  });
});

describe('finding 6: the cooldown is read under the resolved instance id', { timeout: 30_000 }, () => {
  it('a node named by DNS name 35 min after a repair of its instance is not repaired again', async () => {
    const table = await freshIncidentTable();
    const now = Date.parse('2026-11-29T10:05:00Z');
    await table.put({ ...nodeCooldownKey(NODE_ID, 'sandbox-image'), at: now - 35 * 60_000 });
    const r = await run(
      incident({
        scopeValue: NODE_DNS,
        incidentKey: `prod-eu|node:${NODE_DNS}|sandbox-image`,
        entities: { node: NODE_DNS },
      }),
      { table, now },
    );
    expect(repairs(r)).toEqual([]);
    expect(summary(r).message).toMatch(/cooldown: pod-doctor acted on this node for sandbox-image/);
  });
});
