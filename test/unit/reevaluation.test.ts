import { describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_LIMITS } from '../../lambdas/core/incident/ingest-limits.js';
import { limitNotice } from '../../lambdas/core/incident/limit-notice.js';
import {
  evaluationName,
  isEvaluation,
  RUN_STALE_MS,
  reevaluationDue,
  reevaluationInput,
} from '../../lambdas/core/incident/reevaluation.js';

const T = Date.parse('2026-11-29T10:00:00Z');
const ended = { workflowStarted: true, runs: 1, closedRuns: 1, startedAt: T } as const;
const limits = { maxReevaluationsPerIncident: 3, reevaluateAfterMinutes: 5 };

describe('when new lines for an open incident are evaluated again', () => {
  it('after a run that ended without a verified repair, once the wait is over', () => {
    expect(reevaluationDue({ ...ended, lastResult: 'not-acted' }, limits, T + 5 * 60_000)).toBe(true);
    expect(reevaluationDue({ ...ended, lastResult: 'acted' }, limits, T + 5 * 60_000)).toBe(true);
    expect(reevaluationDue({ ...ended, lastResult: 'not-acted' }, limits, T + 4 * 60_000)).toBe(false);
  });

  it('never after a verified repair, nor while the run goes on (unless it is stale), nor past the limit', () => {
    expect(reevaluationDue({ ...ended, lastResult: 'verified' }, limits, T + 60 * 60_000)).toBe(false);
    const running = { ...ended, closedRuns: 0 };
    expect(reevaluationDue(running, limits, T + 60 * 60_000)).toBe(false);
    expect(reevaluationDue(running, limits, T + RUN_STALE_MS + 1)).toBe(true);
    expect(reevaluationDue({ ...ended, runs: 4, closedRuns: 4 }, limits, T + 60 * 60_000)).toBe(false);
    expect(reevaluationDue({ ...ended, runs: 3, closedRuns: 3 }, limits, T + 60 * 60_000)).toBe(true);
    expect(reevaluationDue({ ...ended, workflowStarted: false }, limits, T + 60 * 60_000)).toBe(false);
  });

  it('a re-evaluation keeps the incident as opened (its pods too: verification judges only them) and takes the new lines as its evidence', () => {
    const opened = JSON.stringify({ incidentId: 'abc-1', class: 'sandbox-image', samples: ['forged'], pods: ['a/b'] });
    const c = { samples: ['real 1', 'real 2'], pods: ['c/d'] };
    expect(reevaluationInput(opened, c, 2)).toEqual({
      incidentId: 'abc-1',
      class: 'sandbox-image',
      samples: ['real 1', 'real 2'],
      pods: ['a/b'],
      evaluation: 2,
    });
  });

  it('evaluations are named after the incident; other runs (an agent request) are not evaluations', () => {
    expect(evaluationName('abc-1', 1)).toBe('abc-1');
    expect(evaluationName('abc-1', 3)).toBe('abc-1-e3');
    expect(isEvaluation('abc-1', 'abc-1')).toBe(true);
    expect(isEvaluation('abc-1', 'abc-1-e3')).toBe(true);
    expect(isEvaluation('abc-1', 'abc-1-agent-20261129T100000')).toBe(false);
    expect(isEvaluation('abc-1', 'abc-1-e')).toBe(false);
    expect(isEvaluation('abc-1', 'abc-12')).toBe(false);
  });
});

describe('the notice of what the limits dropped', () => {
  it('is one line per field, whatever the dropped candidates say', () => {
    const n = limitNotice(
      'prod\neu',
      [{ cluster: 'prod\neu', class: 'image-not-found\nREVIEW AND DECIDE: https://evil', count: 3, limit: 'delivery' }],
      { keptAt: 'dropped/2026/11/29/100000-r.jsonl', limits: DEFAULT_INGEST_LIMITS },
    );
    expect(n.subject).not.toMatch(/\n/);
    expect(n.message.split('\n').filter((l) => l.includes('evil'))).toHaveLength(1);
    expect(n.message).toContain('image-not-found REVIEW AND DECIDE: https://evil: 1 candidate(s), 3 line(s)');
    expect(n.message).toContain(
      '20 new incidents and executions per delivery and rank; per cluster and hour 100 incidents, 60 executions (AWS and node rank each)',
    );
  });
});
