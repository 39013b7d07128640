import { beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount } from '../../local/account-snapshot.js';
import {
  DOCUMENTS,
  type RunResult,
  runWorkflow,
  synthesizedDefinition,
  warmUpRuntime,
} from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import type { TaskFaults } from '../../local/task-faults.js';
import type { SsmFaults } from '../../local/workflow-clients.js';
import { incident, summaryOf } from './support.js';

/**
 * Issue 12 "Injected faults": throttling and 5xx from every service the workflow calls, under the
 * error names Step Functions reports, against the synthesized Retry/Catch. Each ends in a terminal,
 * recorded and notified state. docs/security.md carries this table.
 */
let definition: Record<string, unknown>;
beforeAll(async () => {
  definition = synthesizedDefinition();
  await warmUpRuntime();
});

const run = (taskFaults: TaskFaults, ssmFaults?: SsmFaults) =>
  runWorkflow(incident(), { account: healthyAccount(), definition, node: simulatedPauseNode(), taskFaults, ssmFaults });
/** Calls of one document (the door's SendCommand) or, for GetCommandInvocation, every poll. */
const ofDocument = (document: string) => (i: unknown) => (i as { DocumentName?: string }).DocumentName === document;
const recorded = (r: RunResult) => [...r.evidence.keys()].some((k) => k.endsWith('summary.json'));
const repaired = (r: RunResult) => r.commands.filter((c) => c.document === DOCUMENTS.repairPauseImage).length;

/** The Lambda Tasks of the pause-image path (the ECR and EKS check branches are skipped for this class). */
const LAMBDA_STATES = [
  'Open incident',
  'Resolve node',
  'Check IAM',
  'Check network',
  'Decide',
  'Check repair',
  'Summarize',
];

describe('transient faults are retried and the repair completes once', () => {
  it.each(LAMBDA_STATES)('Lambda throttled twice on "%s"', async (state) => {
    const r = await run({ [state]: { error: 'Lambda.TooManyRequestsException', times: 2 } });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.states).toContain(state);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
    expect(repaired(r)).toBe(1);
    expect(r.sns).toHaveLength(1);
  });

  // Inside the door: its SDK call throws (after the SDK's own retries), the door's Task is retried.
  it.each([
    ['SendCommand', 'the probe', 'ThrottlingException', ofDocument(DOCUMENTS.probeNode)],
    ['SendCommand', 'the repair', 'ThrottlingException', ofDocument(DOCUMENTS.repairPauseImage)],
    ['GetCommandInvocation', 'a poll', 'InternalServerError', undefined],
  ] as const)('Run Command %s of %s answers %s twice', async (api, _, error, when) => {
    const r = await run({}, { [api]: { error, times: 2, ...(when ? { when } : {}) } });
    expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
    expect(r.failures.filter((f) => f.startsWith(`Door: ${error}`))).toHaveLength(2);
    expect(summaryOf(r).outcome).toBe('repaired and verified');
    expect(repaired(r)).toBe(1);
  });

  it.each(['ProvisionedThroughputExceededException', 'RequestLimitExceeded'])(
    'the table throttled (%s) past the SDK retries inside "Open incident": Step Functions retries the function',
    async (error) => {
      const r = await run({ 'Open incident': { error, times: 1 } });
      expect(summaryOf(r).outcome).toBe('repaired and verified');
      expect(repaired(r)).toBe(1);
    },
  );

  it.each(['SNS.ThrottledException', 'SNS.InternalErrorException', 'SNS.KMSThrottlingException'])(
    'SNS answers %s once on the summary: it is retried, not turned into a failed incident',
    async (error) => {
      const r = await run({ Notify: { error, times: 1 } });
      expect(r.status, r.failures.join('\n')).toBe('SUCCEEDED');
      expect(summaryOf(r).outcome).toBe('repaired and verified');
      expect(r.sns).toHaveLength(1);
    },
  );
});

describe('persistent faults end terminal, recorded and notified', () => {
  it('a decision function failing with 5xx every time: failure recorded and mailed, nothing done', async () => {
    const r = await run({ Decide: { error: 'Lambda.ServiceException' } });
    expect(r.status).toBe('FAILED');
    expect(r.states.slice(-3)).toEqual(['Record failure', 'Notify failure', 'Workflow failed']);
    expect(recorded(r)).toBe(true);
    expect(r.sns).toHaveLength(1);
    expect(repaired(r)).toBe(0);
  });

  it('a check function timing out (Lambda.Unknown): an error finding, fail closed, mailed', async () => {
    const r = await run({ 'Check network': { error: 'Lambda.Unknown' } });
    expect(r.status).toBe('SUCCEEDED');
    expect(repaired(r)).toBe(0);
    expect(summaryOf(r).outcome).toBe('diagnosed; action blocked by safety policy');
    expect(summaryOf(r).message).toContain('ERR   check.network: the network checks could not run: Lambda.Unknown');
    expect(r.sns).toHaveLength(1);
  });

  it('SSM refusing the repair command every time: the action fails, recorded and mailed', async () => {
    const r = await run(
      {},
      { SendCommand: { error: 'InternalServerError', when: ofDocument(DOCUMENTS.repairPauseImage) } },
    );
    expect(['SUCCEEDED', 'FAILED']).toContain(r.status);
    expect(repaired(r)).toBe(0);
    expect(recorded(r)).toBe(true);
    expect(r.sns).toHaveLength(1);
  });

  it('the table throttled from the start: nothing recorded, a bare notice still goes out', async () => {
    const throttled = { error: 'ProvisionedThroughputExceededException' };
    const r = await run({ 'Open incident': throttled, 'Record failure': throttled });
    expect(r.status).toBe('FAILED');
    expect(r.states.slice(-2)).toEqual(['Notify bare failure', 'Workflow failed']);
    expect(r.sns).toHaveLength(1);
    expect(r.sns[0].message).toContain(String(incident().incidentId));
    expect(repaired(r)).toBe(0);
  });

  it('SNS down for every notice: the execution fails after recording (the failed-executions alarm is the notice)', async () => {
    const down = { error: 'SNS.InternalErrorException' };
    const r = await run({ Notify: down, 'Notify failure': down, 'Notify bare failure': down });
    expect(r.status).toBe('FAILED');
    expect(recorded(r)).toBe(true);
    expect(r.sns).toHaveLength(0);
    expect(repaired(r)).toBe(1);
  });
});
