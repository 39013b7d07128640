import { describe, expect, it } from 'vitest';
import { COMPONENTS, type ComponentId, medianSampler, quantile } from '../../bench/latency-model.js';
import { PathError, pathTime } from '../../bench/latency-walk.js';

/** Every component 0 except those named: exact arithmetic on the walk. */
const only =
  (values: Partial<Record<ComponentId, number>>) =>
  (id: ComponentId): number =>
    values[id] ?? 0;

/**
 * A door call like the synthesized one: the caller's request Pass opens the call, the door's Task
 * sends the command, waits 5 s while it runs and polls again, then goes back where the call says.
 */
const definition = {
  StartAt: 'Diagnose',
  States: {
    Diagnose: {
      Type: 'Parallel',
      Next: 'Act: request',
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
    'Act: request': {
      Type: 'Pass',
      Parameters: { slot: 'act', returnTo: 'act' },
      ResultPath: '$.door.call',
      Next: 'Door',
    },
    Door: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'door', 'door.$': '$.door' },
      Next: 'Door: running?',
    },
    'Door: running?': {
      Type: 'Choice',
      Choices: [{ Variable: '$.door.run.step', StringEquals: 'wait', Next: 'Door: wait' }],
      Default: 'Door: back',
    },
    'Door: wait': { Type: 'Wait', Seconds: 5, Next: 'Door' },
    'Door: back': {
      Type: 'Choice',
      Choices: [{ Variable: '$.door.call.returnTo', StringEquals: 'act', Next: 'Watch' }],
      Default: 'Door: lost',
    },
    'Door: lost': { Type: 'Fail' },
    Watch: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Parameters: { FunctionName: 'kubernetes', Payload: { action: 'verify' } },
      Next: 'Pods running?',
    },
    'Pods running?': {
      Type: 'Choice',
      Choices: [{ Variable: '$.watch.running', BooleanEquals: true, Next: 'Verdict' }],
      Default: 'Give up',
    },
    'Give up': { Type: 'Fail' },
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
  'Act: request',
  'Door',
  'Door: running?',
  'Door: wait',
  'Door: back',
  'Watch',
  'Pods running?',
  'Verdict',
  'Done',
];

describe('latency model: the walk over an ASL definition', () => {
  it("adds Wait seconds, takes the slowest Parallel branch, polls the door's command until done, waits for the pods", () => {
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
    // The ingest function's cold start: 1 s. Parallel: max(cold check 1 s, wait 7 s) → 8; the door
    // (cold, 1 s) sends at 9, the command is done at 9 + 11 = 20: polls at 14, 19, 24. Pods run at
    // 20 + 5 + 1 = 26: the watch (cold, from 24 to 25) ends then; the verdict's function is warm.
    expect(p.entered.filter((s) => s === 'Door: wait').length).toBe(3);
    expect(p.verifiedAt).toBeCloseTo(26, 6);
    expect(p.waited).toBe(22);
  });

  it('fails when a Choice took no branch the execution entered, or a state is missing', () => {
    expect(() =>
      pathTime(definition, {
        visited: visited.filter((s) => s !== 'Verdict'),
        verdictState: 'Verdict',
        sample: only({}),
      }),
    ).toThrow(PathError);
    const broken = { ...definition, States: { ...definition.States, Verdict: { Type: 'Pass', Next: 'Nowhere' } } };
    expect(() => pathTime(broken, { visited, verdictState: 'Verdict', sample: only({}) })).toThrow(/no state Nowhere/);
    const lost = {
      ...definition,
      States: {
        ...definition.States,
        'Act: request': { ...definition.States['Act: request'], Parameters: { slot: 'act', returnTo: 'remedy' } },
      },
    };
    expect(() => pathTime(lost, { visited, verdictState: 'Verdict', sample: only({}) })).toThrow(
      /no way back to "remedy"/,
    );
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
