import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { APPROVAL_STATE, StepFunctionsRequester } from '../../cli/mcp/action-requests.js';
import type { IncidentReader } from '../../cli/mcp/incident-reader.js';
import { DEFAULT_CLASS_MODES } from '../../lambdas/core/contract/failure-classes.js';
import { agentExecutionName, askFirst } from '../../lambdas/core/door/agent-request.js';
import type { WorkflowConfig } from '../../lambdas/core/workflow/workflow-config.js';

const config = (over: Partial<WorkflowConfig>): WorkflowConfig => ({
  clusters: [],
  modes: { ...DEFAULT_CLASS_MODES },
  remedies: {},
  limits: {
    maxNodeActionsPerClusterPerHour: 5,
    maxNodeGroupShareAffected: 0.3,
    incidentWindowMinutes: 30,
    nodeCooldownMinutes: 60,
  },
  killSwitchParameterName: '/pod-doctor/kill-switch',
  documents: { probeNode: 'p', repairPauseImage: 'r', collectLogs: 'c', restartRuntime: 'rr' },
  historyRetentionDays: 30,
  evidenceBucket: 'b',
  tableName: 't',
  ...over,
});

describe("an agent's request: every change asks a human first", () => {
  it('turns auto into approve for the class, and never makes pod-doctor do more', () => {
    const c = config({
      modes: { ...DEFAULT_CLASS_MODES, 'pid-exhaustion': 'auto', 'sandbox-image': 'observe' },
      remedies: { 'pid-exhaustion': 'auto', 'cni-permissions': 'auto', 'sandbox-image': 'dry-run' },
    });
    const asked = askFirst(c, 'pid-exhaustion');
    expect(asked.modes['pid-exhaustion']).toBe('approve');
    expect(asked.remedies['pid-exhaustion']).toBe('approve');
    // Other classes are another run's business; observe and dry-run stay what they are.
    expect(asked.remedies['cni-permissions']).toBe('auto');
    expect(askFirst(c, 'sandbox-image').modes['sandbox-image']).toBe('observe');
    expect(askFirst(c, 'sandbox-image').remedies['sandbox-image']).toBe('dry-run');
  });

  it('names its execution after the incident within Step Functions’ 80 characters', () => {
    const name = agentExecutionName(`${'i'.repeat(100)}.x/y`, new Date('2026-12-01T23:30:05.123Z'));
    expect(name.length).toBeLessThanOrEqual(80);
    expect(name).toMatch(/^i+-agent-20261201233005$/);
  });
});

describe('request_action against a deployment (Step Functions)', () => {
  const sfn = mockClient(SFNClient);
  const LAST = 'arn:aws:states:eu-west-1:111122223333:execution:PodDoctor:inc-1';
  const run = { incidentId: 'inc-1', class: 'pid-exhaustion', cluster: 'prod', outcome: 'x', kind: 'verified' };
  const reader: Pick<IncidentReader, 'get'> = {
    get: async () => ({ runs: [{ ...run, closedAt: '', executionArn: LAST, summary: null }], summary: null }),
  };
  const requester = () =>
    new StepFunctionsRequester({
      sfn: new SFNClient({ region: 'eu-west-1' }),
      incidents: async () => reader,
      now: () => new Date('2026-12-01T23:30:00Z'),
      pollMs: 1,
      waitMs: 3,
      sleep: async () => {},
    });
  const stored = { incidentId: 'inc-1', class: 'pid-exhaustion', cluster: 'prod', pods: ['batch/worker-5'] };

  beforeEach(() => {
    sfn.reset();
    sfn.on(DescribeExecutionCommand, { executionArn: LAST }).resolves({
      input: JSON.stringify(stored),
      stateMachineArn: 'arn:aws:states:eu-west-1:111122223333:stateMachine:PodDoctor',
    });
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${LAST}-agent` });
  });

  it("starts the incident's run again on its own stored input, marked as an agent's request, and waits for the approval it asks", async () => {
    sfn
      .on(GetExecutionHistoryCommand)
      .resolvesOnce({ events: [] })
      .resolves({
        events: [
          {
            timestamp: new Date(),
            type: 'TaskStateEntered',
            id: 9,
            stateEnteredEventDetails: { name: 'Request approval' },
          },
        ],
      });
    sfn.on(DescribeExecutionCommand, { executionArn: `${LAST}-agent` }).resolves({ status: 'RUNNING' });
    const r = await requester().request('inc-1', 'restart it\nDB_PASSWORD=hunter2secret');
    expect(r).toMatchObject({ status: 'waiting-for-approval', execution: `${LAST}-agent` });
    const start = sfn.commandCalls(StartExecutionCommand)[0].args[0].input;
    expect(start.name).toBe('inc-1-agent-20261201233000');
    expect(JSON.parse(start.input ?? '')).toEqual({
      ...stored,
      agentRequest: { by: 'mcp', at: '2026-12-01T23:30:00.000Z', note: 'restart it DB_PASSWORD=[REDACTED]' },
    });
  });

  it("knows the workflow's approval waits: before the action door and the door's own", () => {
    expect(
      ['Request approval', 'Request remedy approval', 'Door: ask', 'Door: wait', 'Act'].map((s) =>
        APPROVAL_STATE.test(s),
      ),
    ).toEqual([true, true, true, false, false]);
  });

  it('says when the run ended without a change to approve, or has not asked yet', async () => {
    sfn.on(GetExecutionHistoryCommand).resolves({ events: [] });
    sfn.on(DescribeExecutionCommand, { executionArn: `${LAST}-agent` }).resolves({ status: 'SUCCEEDED' });
    expect((await requester().request('inc-1', 'x')).status).toBe('ended-without-asking');
    sfn.on(DescribeExecutionCommand, { executionArn: `${LAST}-agent` }).resolves({ status: 'RUNNING' });
    expect((await requester().request('inc-1', 'x')).status).toBe('running');
  });
});
