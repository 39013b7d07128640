import { describe, expect, it } from 'vitest';
import { type FinishedScenario, headline, outcomeKind, scenarioLine } from '../../demo/progress.js';

const run = (scenario: string, outcome: string, expected = outcome): FinishedScenario => ({
  scenario,
  class: 'sandbox-image',
  expected: { class: 'sandbox-image', outcome: expected },
  actions: [{ id: 'repair-pause-image', status: 'Success' }],
  outcome,
  node: 'real containerd',
  ms: 6120,
});

describe('what the demo says', () => {
  it('counts each outcome once, by what the summary says became of it', () => {
    expect(outcomeKind('repaired and verified')).toBe('repaired and verified');
    expect(outcomeKind('attach-managed-policy verified; repaired and verified')).toBe('repaired and verified');
    expect(outcomeKind('collect-logs done; restart-runtime: repaired and verified')).toBe('repaired and verified');
    expect(outcomeKind('restart-aws-node verified; collect-logs done')).toBe('remedied');
    expect(outcomeKind('remedied and verified: create an ECR pull-through cache rule')).toBe('remedied');
    expect(outcomeKind('attach-managed-policy rolled-back: verification failed (…)')).toBe('rolled back');
    expect(outcomeKind('diagnosed; action recommended')).toBe('diagnosed');
    expect(outcomeKind('no action: rejected')).toBe('other');
  });

  it('the headline names every kind, and what did not end as expected', () => {
    const results = [
      run('a', 'repaired and verified'),
      run('b', 'remedied and verified: x'),
      run('c', 'diagnosed; action recommended'),
      run('d', 'attach-managed-policy rolled-back: y'),
      run('e', 'diagnosed; action recommended'),
    ];
    expect(headline(results)).toBe('5 scenarios: 1 repaired and verified, 1 remedied, 2 diagnosed, 1 rolled back');
    expect(headline([...results, run('f', 'workflow failed', 'repaired and verified')])).toBe(
      '6 scenarios: 1 repaired and verified, 1 remedied, 2 diagnosed, 1 rolled back, 1 other — 1 not as expected',
    );
  });

  it('a scenario line has the class, the action, the outcome and the time', () => {
    expect(scenarioLine(run('pause-image-gc-401', 'repaired and verified'), 2, 17)).toBe(
      '✓ [2/17] pause-image-gc-401  sandbox-image  repair-pause-image: Success → repaired and verified  (6.1 s)',
    );
    expect(scenarioLine(run('x', 'workflow failed', 'repaired and verified'), 1, 1)).toMatch(
      /^✗ .*workflow failed \(expected sandbox-image \/ repaired and verified\)/,
    );
  });
});
