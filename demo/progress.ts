/**
 * What the demo says while it runs and when it ends: one line per scenario as it finishes (class,
 * action, outcome, time) and a one-line headline that counts what became of the incidents.
 */

/** What a run's outcome amounts to, for the headline. */
export type OutcomeKind = 'repaired and verified' | 'remedied' | 'diagnosed' | 'rolled back' | 'other';

/** The fields of a scenario's result these lines read. */
export interface FinishedScenario {
  readonly scenario: string;
  readonly class: string;
  readonly expected: { readonly class: string; readonly outcome: string };
  readonly actions: readonly { id: string; status: string }[];
  readonly outcome: string;
  readonly node: string;
  readonly ms: number;
}

/**
 * The kind of an outcome as the summary words it: a rolled-back change first (whatever else ran), a
 * node repaired and verified by its own probe (and its pods), an account or cluster change verified,
 * then a diagnosis without a change.
 */
export function outcomeKind(outcome: string): OutcomeKind {
  if (/\brolled[- ]back\b/.test(outcome)) return 'rolled back';
  if (/\brepaired and verified\b/.test(outcome)) return 'repaired and verified';
  if (/^remedied and verified\b|\bverified\b/.test(outcome)) return 'remedied';
  if (/^diagnosed\b/.test(outcome)) return 'diagnosed';
  return 'other';
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** As the scenario expects (its class and outcome): the demo's own check. */
export function asExpected(r: FinishedScenario): boolean {
  return r.class === r.expected.class && r.outcome === r.expected.outcome;
}

/** The line a scenario prints when it finishes: `✓ name  class  action: status → outcome  (time)`. */
export function scenarioLine(r: FinishedScenario, index: number, total: number): string {
  const actions = r.actions.map((a) => `${a.id}: ${a.status}`).join(', ') || 'no action';
  const mark = asExpected(r) ? '✓' : '✗';
  const node = r.node === 'simulated' ? ' [simulated node]' : '';
  const miss = asExpected(r) ? '' : ` (expected ${r.expected.class} / ${r.expected.outcome})`;
  return `${mark} [${index}/${total}] ${r.scenario}  ${r.class}  ${actions} → ${r.outcome}${miss}  (${seconds(r.ms)})${node}`;
}

/** "17 scenarios: 5 repaired and verified, 7 remedied, 4 diagnosed, 1 rolled back" (and what did not end so). */
export function headline(results: readonly FinishedScenario[]): string {
  const count = (k: OutcomeKind) => results.filter((r) => outcomeKind(r.outcome) === k).length;
  const parts = (['repaired and verified', 'remedied', 'diagnosed', 'rolled back'] as const).map(
    (k) => `${count(k)} ${k}`,
  );
  const other = count('other');
  const wrong = results.filter((r) => !asExpected(r)).length;
  return `${results.length} scenario${results.length === 1 ? '' : 's'}: ${parts.join(', ')}${
    other ? `, ${other} other` : ''
  }${wrong ? ` — ${wrong} not as expected` : ''}`;
}
