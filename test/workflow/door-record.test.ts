import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FailureClass } from '../../lambdas/core/contract/failure-classes.js';
import { detachEcrReadOnlyEvent, healthyAccount, NODE_DNS, NODE_ID, NODE_ROLE } from '../../local/account-snapshot.js';
import { accessKeyOfToken } from '../../local/eks-token.js';
import { isEventReport } from '../../local/kube-api-helpers.js';
import { roleCredentials } from '../../local/kubernetes.js';
import { clusterOnNode, LocalCluster } from '../../local/local-cluster.js';
import { DOCUMENTS, definitionOf, type RunResult, runWorkflow, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedNode, simulatedPauseNode } from '../../local/node-adapters.js';
import { onSlot, type TaskFaults } from '../../local/task-faults.js';
import { LOCAL_CONFIG, type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { incident, summaryOf } from './support.js';

/**
 * The door records what happened (issue 34): the Door Task is retried on errors, and an error raised
 * after a change took effect (here: the function fails right after its step, as a throttled last
 * write or a lost response does) must not turn the change into a refusal. Through the synthesized
 * workflow, Retry included: the retried call reports the first attempt's result from the call's
 * ledger row, and never gates (nor runs) the change a second time.
 */

const READ_ONLY = 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly';
let template: ResolvedTemplate;
let definition: Record<string, unknown>;
beforeAll(() => {
  template = synthesizedTemplate({
    clusters: [{ ...LOCAL_CONFIG.clusters[0], remediation: { roles: [NODE_ROLE] } }],
  });
  definition = definitionOf(template);
  return warmUpRuntime(template);
});

let cluster: LocalCluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** The door's step for `slot` fails once, after it ran: what it did took effect. */
const failsAfter = (slot: string): TaskFaults => ({
  Door: { error: 'ProvisionedThroughputExceededException', times: 1, after: true, when: onSlot(slot) },
});
const forClass = (cls: FailureClass) =>
  incident({ class: cls, incidentKey: `prod-eu|node:${NODE_ID}|${cls}`, cause: `${cls} in the field` });
const retried = (r: RunResult) => r.failures.filter((f) => f.startsWith('Door: ProvisionedThroughputExceeded'));
/** What the door asked of the account (IAM reads and writes, in order): the gate's re-check reads IAM. */
const iamCalls = (r: RunResult) =>
  r.decisions.filter((d) => /DoorFunction/.test(d.principal) && d.action.startsWith('iam:')).map((d) => d.action);
/** The door's reads of approval grants: one per gate. */
const grantReads = (r: RunResult) =>
  r.decisions.filter(
    (d) => d.action === 'dynamodb:GetItem' && String(d.context?.['dynamodb:LeadingKeys']).startsWith('GRANT#'),
  ).length;
const ledger = async (r: RunResult) =>
  (await r.table.scan()).filter((x) => String(x.pk).startsWith('LEDGER#') && String(x.sk).startsWith('CALL#'));

describe('a change that took effect is reported as it was, once', { timeout: 60_000 }, () => {
  it('an attached IAM policy stays "verified" (not "not-needed"), and the gate and the IAM calls run once', async () => {
    const run = (taskFaults?: TaskFaults) => {
      const account = healthyAccount();
      account.roles[NODE_ROLE].attached = account.roles[NODE_ROLE].attached.filter((p) => p !== READ_ONLY);
      account.cloudTrailEvents.push(detachEcrReadOnlyEvent());
      return runWorkflow(forClass('sandbox-image'), {
        account,
        template,
        definition,
        node: simulatedPauseNode(),
        modes: { 'sandbox-image': 'auto' },
        remedies: { 'sandbox-image': 'auto' },
        taskFaults,
      }).then((r) => ({ r, account }));
    };
    const clean = await run();
    const { r, account } = await run(failsAfter('remedy'));
    expect(retried(r)).toHaveLength(1);
    expect(account.roles[NODE_ROLE].attached).toContain(READ_ONLY);
    expect(summaryOf(r).outcome).toBe(summaryOf(clean.r).outcome);
    expect(summaryOf(r).outcome).toMatch(/^attach-managed-policy verified; repaired and verified$/);
    expect(summaryOf(r).message).not.toMatch(/not-needed/);
    // The retry made no IAM call at all: no second re-check, no second attach.
    expect(iamCalls(r)).toEqual(iamCalls(clean.r));
    expect(iamCalls(r).filter((a) => a === 'iam:AttachRolePolicy')).toHaveLength(1);
    expect(grantReads(r)).toEqual(grantReads(clean.r));
    const remedy = (await ledger(r)).filter((x) => x.slot === 'remedy');
    expect(remedy.map((x) => [x.outcome, x.status])).toEqual([['done', 'verified']]);
  });

  it('a node command sent is polled, not sent again: one repair, repaired and verified', async () => {
    const r = await runWorkflow(incident(), {
      account: healthyAccount(),
      template,
      definition,
      node: simulatedPauseNode(),
      taskFaults: failsAfter('act'),
    });
    expect(retried(r)).toHaveLength(1);
    expect(r.commands.filter((c) => c.document === DOCUMENTS.repairPauseImage)).toHaveLength(1);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });

  it('an aws-node restart stays in the outcome: one delete, verified, and the gate runs once', async () => {
    const run = async (taskFaults?: TaskFaults) => {
      const c = await LocalCluster.start(clusterOnNode(NODE_DNS), { behaviour: {}, watchSeconds: 1 });
      cluster = c;
      const r = await runWorkflow(forClass('ipamd-unavailable'), {
        account: healthyAccount(),
        template,
        definition,
        node: simulatedNode([]),
        modes: { 'ipamd-unavailable': 'auto' },
        remedies: { 'ipamd-unavailable': 'auto' },
        kubernetes: c.kubernetes,
        taskFaults,
      });
      const door = roleCredentials(r.decisions.find((d) => /DoorFunction/.test(d.principal))?.principal ?? '');
      const calls = c.server.seen
        .filter((x) => accessKeyOfToken(x.authorization) === door.accessKeyId && !isEventReport(x))
        .map((x) => `${x.method} ${x.path}`);
      const writes = c.writes();
      await c.stop();
      cluster = undefined;
      return { r, calls, writes };
    };
    const clean = await run();
    const { r, calls, writes } = await run(failsAfter('remedy'));
    expect(retried(r)).toHaveLength(1);
    expect(writes).toEqual(['DELETE /api/v1/namespaces/kube-system/pods/aws-node-7xk2p']);
    expect(summaryOf(r).outcome).toMatch(/^restart-aws-node verified; collect-logs done$/);
    // Each gate reads the approval grant of its request first: the retry gated nothing again.
    expect(grantReads(r)).toEqual(grantReads(clean.r));
    expect(calls.filter((x) => x.startsWith('DELETE'))).toEqual(writes);
  });
});
