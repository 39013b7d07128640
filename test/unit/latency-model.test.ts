import { describe, expect, it } from 'vitest';
import { COMPONENTS, type ComponentId, medianSampler, quantile } from '../../bench/latency-model.js';
import { PathError, pathTime } from '../../bench/latency-walk.js';

/** Every component 0 except those named: exact arithmetic on the walk. */
const only =
  (values: Partial<Record<ComponentId, number>>) =>
  (id: ComponentId): number =>
    values[id] ?? 0;

/** A poll loop like the synthesized one: send, wait 5 s, get result, loop while the command runs. */
const definition = {
  StartAt: 'Diagnose',
  States: {
    Diagnose: {
      Type: 'Parallel',
      Next: 'Act: send command',
      Branches: [
        {
          StartAt: 'Check',
          States: {
            Check: {
              Type: 'Task',
              Resource: 'arn:aws:states:::lambda:invoke',
              Parameters: { FunctionName: 'check' },
              End: true,
            },
          },
        },
        { StartAt: 'Slow', States: { Slow: { Type: 'Wait', Seconds: 7, End: true } } },
      ],
    },
    'Act: send command': {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:ssm:sendCommand',
      Parameters: { 'DocumentName.$': '$.plan.nodeAction.documentName' },
      Next: 'Act: wait',
    },
    'Act: wait': { Type: 'Wait', Seconds: 5, Next: 'Act: get result' },
    'Act: get result': {
      Type: 'Task',
      Resource: 'arn:aws:states:::aws-sdk:ssm:getCommandInvocation',
      Next: 'Act: finished?',
    },
    'Act: finished?': {
      Type: 'Choice',
      Choices: [{ Next: 'Act: wait' }, { Next: 'Act: timed out' }],
      Default: 'Watch',
    },
    'Act: timed out': { Type: 'Fail' },
    Watch: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'kubernetes', Payload: { action: 'verify' } },
      Next: 'Verdict',
    },
    Verdict: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'check' },
      Next: 'Done',
    },
    Done: { Type: 'Succeed' },
  },
};
const visited = [
  'Diagnose',
  'Check',
  'Slow',
  'Act: send command',
  'Act: wait',
  'Act: get result',
  'Act: finished?',
  'Watch',
  'Verdict',
  'Done',
];

describe('latency model: the walk over an ASL definition', () => {
  it('adds Wait seconds, takes the slowest Parallel branch, polls until the command is done, waits for the pods', () => {
    const p = pathTime(definition, {
      visited,
      verdictState: 'Verdict',
      sample: only({
        ssmDelivery: 2,
        repairScript: 9,
        kubeletRetryPhase: 0.5,
        kubeletRetryPeriod: 10,
        podStart: 1,
        lambdaColdInit: 1,
      }),
    });
    // The ingest function's cold start: 1 s. Parallel: max(cold check 1 s, wait 7 s) → 8; the command
    // is done at 8 + 11 = 19: polls at 13, 18, 23. Pods run at 19 + 5 + 1 = 25: the watch (cold, from
    // 23 to 24) ends then; the verdict's function is warm.
    expect(p.entered.filter((s) => s === 'Act: wait').length).toBe(3);
    expect(p.verifiedAt).toBeCloseTo(25, 6);
    expect(p.waited).toBe(22);
  });

  it('fails when a Choice took no branch the execution entered, or a state is missing', () => {
    expect(() =>
      pathTime(definition, {
        visited: visited.filter((s) => s !== 'Watch'),
        verdictState: 'Verdict',
        sample: only({}),
      }),
    ).toThrow(PathError);
    const broken = { ...definition, States: { ...definition.States, Verdict: { Type: 'Pass', Next: 'Nowhere' } } };
    expect(() => pathTime(broken, { visited, verdictState: 'Verdict', sample: only({}) })).toThrow(/no state Nowhere/);
  });

  it('reads each component at its quantiles; every component names its source', () => {
    for (const c of Object.values(COMPONENTS)) {
      expect(c.source).toMatch(/^https:\/\//);
      if (c.p50 !== undefined) {
        expect(quantile(c, 0.5)).toBeCloseTo(c.p50, 6);
        expect(quantile(c, 0.9)).toBeCloseTo(c.p90 ?? 0, 3);
      }
    }
    expect(medianSampler(COMPONENTS)('kubeletRetryPeriod')).toBe(12.5);
  });
});
