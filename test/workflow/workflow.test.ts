import { Duration } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { pollBudgets } from '../../lib/constructs/incident-workflow.js';
import { ENDPOINT_SG, healthyAccount, NODE_ID } from '../../local/account-snapshot.js';
import { withoutGrant } from '../../local/iam.js';
import {
  DOCUMENTS,
  freshIncidentTable,
  runWorkflow,
  synthesizedDefinition,
  warmUpRuntime,
} from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { synthesizedTemplate } from '../../local/template.js';
import { AL2023_PAUSE, docsRun, incident, summaryOf } from './support.js';

let definition: Record<string, unknown>;
beforeAll(async () => {
  definition = synthesizedDefinition();
  await warmUpRuntime();
});
const run = (
  i: Record<string, unknown>,
  o: Omit<Parameters<typeof runWorkflow>[1], 'definition' | 'account'> & {
    account?: ReturnType<typeof healthyAccount>;
  },
) => runWorkflow(i, { account: healthyAccount(), definition, ...o });

/** How often the run entered `state` between "Act: request" and the action's result. */
function duringAct(r: { states: string[] }, state: string): number {
  const from = r.states.indexOf('Act: request');
  return r.states.slice(from, r.states.indexOf('Act done?', from)).filter((s) => s === state).length;
}

describe('in-place tier, auto mode', () => {
  it('repairs a deleted AL2023 pause image, verifies it and mails a complete summary', async () => {
    const node = simulatedPauseNode();
    const r = await run(incident(), { node });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.repairPauseImage, DOCUMENTS.probeNode]);
    expect(r.commands[1].parameters).toEqual({ Image: [AL2023_PAUSE], DryRun: ['false'] });
    const s = summaryOf(r);
    expect(s.outcome).toBe('repaired and verified');
    expect(s.subject.length).toBeLessThanOrEqual(100);
    expect(s.subject).toBe('[pod-doctor] sandbox-image on prod-eu/ip-10-0-12-34: repaired and verified');
    for (const section of [
      'WHAT FAILED',
      'WHERE',
      'PODS',
      'EVIDENCE',
      'CHECKS',
      'ACTIONS',
      'OUTCOME',
      'NEXT STEP',
      'Execution: https://eu-west-1.console.aws.amazon.com/states/',
    ]) {
      expect(s.message).toContain(section);
    }
    expect(s.message).toMatch(/repair-pause-image: Success \(SSM command 00000002-/);
    expect(s.message).toContain('"method":"reimport"');
    expect(s.message).toContain('FAIL  node.sandbox-image.present');
    expect(r.sns.map((m) => m.subject)).toEqual([s.subject]);
  });

  it('stays under 50 state transitions', async () => {
    const r = await run(incident(), { node: simulatedPauseNode() });
    expect(r.transitions).toBeLessThan(50);
  });

  it('records the audit trail: JSON and Markdown evidence, a history row linking both, cooldown, released lock', async () => {
    const table = await freshIncidentTable();
    const r = await run(incident(), { node: simulatedPauseNode(), table });
    const keys = [...r.evidence.keys()];
    expect(keys.some((k) => k.endsWith('/summary.json'))).toBe(true);
    expect(keys.some((k) => k.endsWith('/summary.md'))).toBe(true);
    const json = JSON.parse(r.evidence.get(keys.find((k) => k.endsWith('/summary.json')) ?? '') ?? '{}');
    expect(json).toMatchObject({
      class: 'sandbox-image',
      outcome: 'repaired and verified',
      actions: [{ id: 'repair-pause-image', status: 'Success' }],
    });
    const rows = await table.scan();
    const history = rows.find((x) => String(x.sk).startsWith('RUN#'));
    expect(history).toMatchObject({
      outcome: 'repaired and verified',
      summaryJson: expect.stringMatching(/^s3:\/\/poddoctor-[\w-]+\/incidents\/.*summary\.json$/),
      summaryMarkdown: expect.stringMatching(/summary\.md$/),
      expiresAt: expect.any(Number),
    });
    expect(rows.filter((x) => x.pk === `NODE#${NODE_ID}`).map((x) => x.sk)).toContain('COOLDOWN#sandbox-image');
    expect(rows.find((x) => String(x.pk).startsWith('LOCK#'))).toMatchObject({ lockedUntil: 0 });
  });

  it('a failure line written after the repair (anyone can write one) does not turn a verified repair into a failure', async () => {
    const table = await freshIncidentTable();
    const i = incident();
    await table.put({
      pk: `INCIDENT#${i.incidentKey}`,
      sk: 'OPEN',
      incidentId: i.incidentId,
      lastSeen: Date.parse('2026-11-29T10:00:00Z'),
    });
    const r = await run(i, { node: simulatedPauseNode(), table, newLinesAfterRepair: true });
    // The lines did arrive (lastSeen moved past the repair); the node's own probe decides.
    const open = (await table.scan()).find((x) => x.sk === 'OPEN');
    expect(Number(open?.lastSeen)).toBeGreaterThan(Date.parse('2026-11-29T10:06:00Z'));
    expect(summaryOf(r).outcome).toMatch(/^repaired and verified/);
    expect(summaryOf(r).message).not.toContain('cordon and drain the node');
    // The run is recorded on the incident: it verified a repair, so the next lines only join.
    expect(open).toMatchObject({ lastResult: 'verified' });
  });

  it('escalates when the probe after the repair still fails', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ healsAfterRepair: false }) });
    expect(summaryOf(r).outcome).toMatch(
      /^repaired, verification failed: still failing after the repair: node.sandbox-image.present fail/,
    );
  });
});

describe('approval', () => {
  it('approve mode mails a signed review link; a scanner GET decides nothing, the POST from the page resumes the execution and the repair runs', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'approve',
    });
    const request = r.sns[0];
    expect(request.subject).toMatch(/^\[pod-doctor\] approval needed: repair-pause-image on prod-eu/);
    expect(request.message).toMatch(
      /Review and decide: https:\/\/[a-z0-9]+\.lambda-url\.eu-west-1\.on\.aws\/\?id=[0-9a-f-]{36}&exp=\d{13}&sig=[\w-]{43}/,
    );
    expect(request.message).not.toContain('task-token-for-tests');
    expect(docsRun(r)).toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });

  it('a rejection means no action', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'reject',
    });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).outcome).toBe('no action: rejected by the approver');
  });

  it('no answer before the deadline means no action', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      modes: { 'sandbox-image': 'approve' },
      approval: 'timeout',
    });
    expect(r.states).toContain('Door: no answer');
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).outcome).toBe('no action: no answer before the approval deadline');
  });
});

describe('modes and tiers', () => {
  it('observe mode diagnoses and recommends, never acts', async () => {
    const r = await run(incident(), { node: simulatedPauseNode(), modes: { 'sandbox-image': 'observe' } });
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode]);
    expect(summaryOf(r).outcome).toBe('diagnosed; action recommended');
    expect(summaryOf(r).message).toContain(
      'repair-pause-image (in-place): recommend - class sandbox-image is in observe mode',
    );
  });

  it('account tier: an ECR endpoint security group blocking 443 is reported with the fix, no node action', async () => {
    const account = healthyAccount();
    for (const g of account.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
    const r = await run(
      incident({
        class: 'registry-unreachable',
        scope: 'image',
        scopeValue: '111122223333.dkr.ecr.eu-west-1.amazonaws.com',
        incidentKey: 'prod-eu|image:111122223333.dkr.ecr.eu-west-1.amazonaws.com|registry-unreachable',
        cause: 'the node cannot reach the registry',
        entities: { instanceId: NODE_ID, image: '111122223333.dkr.ecr.eu-west-1.amazonaws.com/payments/api:v2.3.1' },
      }),
      { node: simulatedPauseNode(), account },
    );
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode]);
    expect(summaryOf(r).message).toContain('FAIL  vpc.endpoint.sg-443');
    expect(summaryOf(r).message).toContain(
      'allow TCP 443 from the node security group on the ECR endpoint security group',
    );
  });
});

describe('safety', () => {
  it('the kill switch blocks the repair', async () => {
    const r = await run(incident(), { node: simulatedPauseNode(), killSwitch: 'on' });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).outcome).toBe('diagnosed; action blocked by safety policy');
    expect(summaryOf(r).message).toContain('kill switch is on');
  });

  it('an unreadable kill switch counts as on (fail closed)', async () => {
    const r = await run(incident(), { node: simulatedPauseNode(), killSwitch: 'unreadable' });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).message).toContain('kill switch parameter unreadable: treated as on');
  });

  it('the breaker stops node actions when most of the node group is hit', async () => {
    const table = await freshIncidentTable();
    for (const n of ['i-0b00000000000001', 'i-0b00000000000002']) {
      await table.put({
        pk: 'ACTIVE#prod-eu#sandbox-image',
        sk: `NODE#${n}`,
        at: Date.parse('2026-11-29T10:04:00Z'),
      });
    }
    const r = await run(incident(), { node: simulatedPauseNode(), table });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).message).toMatch(/breaker: 3\/3 nodes of the node group hit by sandbox-image/);
  });

  it('the hourly cap stops node actions', async () => {
    const table = await freshIncidentTable();
    for (let k = 0; k < 5; k++)
      await table.put({
        pk: 'CLUSTER#prod-eu',
        sk: `ACTION#${Date.parse('2026-11-29T09:30:00Z') + k}#x`,
      });
    const r = await run(incident(), { node: simulatedPauseNode(), table });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).message).toContain('hourly cap: 5 node actions');
  });

  it('fails closed when a relevant check returned error (throttled)', async () => {
    const r = await run(incident(), { node: simulatedPauseNode(), faults: { throttle: ['DescribeSubnetsCommand'] } });
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
    expect(summaryOf(r).message).toContain(
      'fail closed: check(s) could not run: subnet.free-ips, subnet.free-prefix-blocks',
    );
    expect(summaryOf(r).message).toContain('ERR   subnet.free-ips');
  });

  it('a second execution for the same incident key stops at the lock', async () => {
    const table = await freshIncidentTable();
    const i = incident();
    await table.put({
      pk: `LOCK#${i.incidentKey}`,
      sk: 'LOCK',
      executionId: 'arn:aws:states:eu-west-1:111122223333:execution:PodDoctorWorkflow:other',
      lockedUntil: Date.parse('2026-11-29T12:00:00Z'),
    });
    const r = await run(i, { node: simulatedPauseNode(), table });
    expect(r.status).toBe('SUCCEEDED');
    expect(r.states).toContain('Duplicate: another execution handles this incident');
    expect(r.commands).toEqual([]);
    expect(r.sns).toEqual([]);
  });
});

describe('SSM orchestration', () => {
  it('a command that never finishes times out at its budget: the await ends, one check finds it still running', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ repair: { pollsBeforeDone: 10_000 } }) });
    // The budget of the longest action document's executionTimeout (collect-logs, 600 s) + 60 s, every 5 s.
    expect(pollBudgets(Duration.seconds(5)).actPolls).toBe(132);
    expect(
      (definition.States as Record<string, { TimeoutSeconds?: number }>)['Door: await command'].TimeoutSeconds,
    ).toBe(660);
    expect(duringAct(r, 'Door: await command')).toBe(1);
    expect(duringAct(r, 'Door: wait')).toBe(0);
    expect(r.failures).toContainEqual(expect.stringMatching(/^Door: await command: States.Timeout/));
    expect(summaryOf(r).outcome).toBe('action timed out');
  });

  it("no poll waits: each command's status-change event resumes the run through the template's rule", async () => {
    const r = await run(incident(), { node: simulatedPauseNode() });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).not.toContain('Door: wait');
    expect(r.states.filter((s) => s === 'Door: await command')).toHaveLength(3);
    // EventBridge invoked the command-wait function for the rule (its resource policy), once per command.
    const byEvents = r.decisions.filter((d) => d.principal === 'events.amazonaws.com');
    expect(byEvents.map((d) => [d.action, d.allowed])).toEqual(Array(3).fill(['lambda:InvokeFunction', true]));
  });

  it('a lost status-change event costs time, not the run: the await times out and the door reads the result once', async () => {
    const r = await run(incident(), { node: simulatedPauseNode(), commandEvents: 'lost' });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.repairPauseImage, DOCUMENTS.probeNode]);
    expect(r.failures.filter((f) => f.startsWith('Door: await command: States.Timeout'))).toHaveLength(3);
    expect(r.states).not.toContain('Door: wait');
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });

  it('an Undeliverable command is reported as a failed action', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ repair: { status: 'Undeliverable', stdout: '' } }) });
    expect(summaryOf(r).outcome).toBe('action failed (Undeliverable)');
  });

  it('a node that is not SSM-managed cannot be probed, so nothing is done blind', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ managed: false }) });
    expect(docsRun(r)).toEqual([]);
    expect(r.output).toMatchObject({ door: { done: { probe: { command: { status: 'NotManaged' } } } } });
    expect(summaryOf(r).message).toContain('ERR   node.probe: node probe did not run: NotManaged');
    expect(summaryOf(r).outcome).toBe('diagnosed; action blocked by safety policy');
  });
});

describe('failure path', () => {
  it('a handler crash still ends in a recorded, notified incident', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      taskFaults: { Decide: { error: 'TypeError', message: 'boom: unexpected plan' } },
    });
    expect(r.status).toBe('FAILED');
    expect(r.states.slice(-3)).toEqual(['Record failure', 'Notify failure', 'Workflow failed']);
    expect(r.sns[0].subject).toMatch(/workflow failed$/);
    expect(r.sns[0].message).toContain('WORKFLOW ERROR  TypeError');
    expect([...r.evidence.keys()].some((k) => k.endsWith('summary.json'))).toBe(true);
  });

  it('a crash before anything was recorded is still notified', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      taskFaults: { 'Open incident': { error: 'Error', message: 'DynamoDB unavailable' } },
    });
    expect(r.status).toBe('FAILED');
    expect(r.sns.length).toBe(1);
  });
});

describe('AWS fidelity of the workflow (issue 10)', () => {
  it('a check function that fails or times out is an error finding; the incident fails closed, not failed', async () => {
    const r = await run(incident(), {
      node: simulatedPauseNode(),
      taskFaults: { 'Check IAM': { error: 'Sandbox.Timedout', message: 'Task timed out after 60.00 seconds' } },
    });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain('IAM checks failed');
    expect(r.states).not.toContain('Record failure');
    expect(summaryOf(r).message).toContain('ERR   check.iam: the IAM checks could not run: Sandbox.Timedout');
    expect(summaryOf(r).message).toContain('fail closed: check(s) could not run: check.iam');
    expect(docsRun(r)).not.toContain(DOCUMENTS.repairPauseImage);
  });

  it('SendCommand denied (AccessDenied from IAM): an error finding, not a failed incident', async () => {
    // The door's role without ssm:SendCommand: IAM (decided by the template's policies) refuses the call.
    const template = withoutGrant(synthesizedTemplate(), /Door/, 'ssm:SendCommand');
    const r = await run(incident(), { node: simulatedPauseNode(), template });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).not.toContain('Record failure');
    expect(docsRun(r)).toEqual([]);
    expect(summaryOf(r).message).toMatch(
      /ERR {3}node\.probe: node probe did not run: CommandError \(AccessDeniedException/,
    );
  });

  it.each([
    [
      'Karpenter / Auto Mode',
      [
        { Key: 'eks:eks-cluster-name', Value: 'prod-eu' },
        { Key: 'karpenter.sh/nodepool', Value: 'default' },
      ],
    ],
    ['self-managed', [{ Key: 'kubernetes.io/cluster/prod-eu', Value: 'owned' }]],
  ])('a %s node is probed and repaired', async (_, Tags) => {
    const account = healthyAccount();
    account.instances[0].Tags = Tags;
    const r = await run(incident(), { node: simulatedPauseNode(), account });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(docsRun(r)).toEqual([DOCUMENTS.probeNode, DOCUMENTS.repairPauseImage, DOCUMENTS.probeNode]);
  });

  it('GetCommandInvocation lagging the event: the door polls again after the interval (the poll loop)', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ repair: { lagsEventBy: 2 } }) });
    expect(duringAct(r, 'Door: await command')).toBe(1);
    expect(duringAct(r, 'Door: wait')).toBe(2);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });

  it('an action running past the old 5-minute poll limit is awaited to its end (budget from executionTimeout)', async () => {
    const r = await run(incident(), { node: simulatedPauseNode({ repair: { pollsBeforeDone: 65 } }) });
    expect(duringAct(r, 'Door: await command')).toBe(1);
    expect(duringAct(r, 'Door: wait')).toBe(0);
    expect(r.failures.filter((f) => f.startsWith('Door: await command'))).toEqual([]);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
  });
});
