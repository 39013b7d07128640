/**
 * Corpus report (npm run corpus:report): statistics by class, format and source; accuracy and
 * per-class precision/recall on the tune split and, separately, on the held-out split; the share of
 * failure lines the derived subscription filter lets through. Misses are listed for the tune split
 * only: the held-out split is scored, never inspected (pass --show-held-out after the catalogue is frozen;
 * --tune-only leaves the held-out figures out while tuning). The context path (context.ts, pod-facts.ts) is scored on
 * both splits beside the single-line classifier; --fresh adds the fresh field set's totals (test/fixtures/fresh/).
 * --context-misses lists the tune split's misses of the context path.
 */
import { buildFilterPattern } from '../lambdas/core/detect/filter-pattern.js';
import { compileFilterPattern } from '../test/support/cloudwatch-filter.js';
import { fieldCorpus, type LabelledLine, labelledCorpus } from '../test/support/corpus.js';
import {
  countBy,
  type Evaluation,
  evaluate,
  inContext,
  type Reader,
  singleLine,
} from '../test/support/corpus-report.js';
import { freshFieldSet } from '../test/support/fresh.js';

const all = labelledCorpus();
const field = fieldCorpus();
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(title: string, rows: [string, number][], limit = 40): void {
  console.log(`\n${title}`);
  for (const [k, n] of rows.slice(0, limit)) console.log(`  ${String(n).padStart(5)}  ${k}`);
  if (rows.length > limit) console.log(`  … ${rows.length - limit} more`);
}

function scores(name: string, lines: readonly LabelledLine[], read: Reader = singleLine): Evaluation {
  const e = evaluate(lines, read);
  console.log(`\n${name}: ${e.lines} lines, accuracy ${pct(e.accuracy)} (${e.lines - e.misses.length}/${e.lines})`);
  console.log(`  ${'class'.padEnd(22)} support predicted precision recall`);
  for (const [c, s] of Object.entries(e.perClass)) {
    console.log(
      `  ${c.padEnd(22)} ${String(s.support).padStart(7)} ${String(s.predicted).padStart(9)} ${pct(s.precision).padStart(9)} ${pct(s.recall).padStart(6)}`,
    );
  }
  return e;
}

console.log(
  `corpus: ${all.length} lines (${all.length - field.length} project, ${field.length} field from ${new Set(field.map((l) => l.source)).size} sources)`,
);
table(
  'by split',
  countBy(all, (l) => l.split),
);
table(
  'by class',
  countBy(all, (l) => l.class),
);
table(
  'by format',
  countBy(all, (l) => l.format),
);
table(
  'by file',
  countBy(all, (l) => l.file),
);
table(
  'by source host',
  countBy(field, (l) => new URL(l.source).host),
  20,
);
table(
  'sources per split',
  countBy([...new Map(field.map((l) => [l.source, l.split])).values()], (s) => s),
);

const tune = scores(
  'tune split',
  all.filter((l) => l.split === 'tune'),
);
// --tune-only: while tuning, the held-out figures are not even printed (look at them once a round).
const tuneOnly = process.argv.includes('--tune-only');
if (!tuneOnly)
  scores(
    'held-out split',
    all.filter((l) => l.split === 'held-out'),
  );

/** The context path (context.ts, pod-facts.ts) on a split: its total only, and where recorded context changed it. */
function contextScores(split: 'tune' | 'held-out', showMisses: boolean): void {
  const lines = all.filter((l) => l.split === split);
  const alone = evaluate(lines);
  const withContext = evaluate(lines, inContext);
  const recorded = lines.filter((l) => l.context).length;
  console.log(
    `\n${split} split, context path: accuracy ${pct(withContext.accuracy)} (${withContext.lines - withContext.misses.length}/${withContext.lines}); single-line ${pct(alone.accuracy)} (${alone.lines - alone.misses.length}/${alone.lines}); ${recorded} lines carry recorded context`,
  );
  if (showMisses) for (const m of withContext.misses) console.log(`  ${m}`);
}
contextScores('tune', process.argv.includes('--context-misses'));
if (!tuneOnly) contextScores('held-out', false);

// The fresh field set (test/fixtures/fresh/): sources the corpus never mined, labelled by each thread's cause before
// any classifier ran, never tuned on. Its totals are printed on request only; its misses never.
if (process.argv.includes('--fresh')) {
  const fresh = freshFieldSet();
  const a = evaluate(fresh);
  const c = evaluate(fresh, inContext);
  console.log(
    `\nfresh field set: ${fresh.length} lines from ${new Set(fresh.map((l) => l.source)).size} sources, ${fresh.filter((l) => l.context).length} with recorded context: single-line ${pct(a.accuracy)} (${a.lines - a.misses.length}/${a.lines}), context path ${pct(c.accuracy)} (${c.lines - c.misses.length}/${c.lines})`,
  );
}

const pass = compileFilterPattern(buildFilterPattern());
for (const split of tuneOnly ? (['tune'] as const) : (['tune', 'held-out'] as const)) {
  const failures = all.filter((l) => l.split === split && l.class !== 'unknown');
  const through = failures.filter((l) => pass(l.line)).length;
  console.log(
    `\nsubscription filter passes ${through}/${failures.length} ${split} failure lines (${pct(through / failures.length)})`,
  );
}
console.log(`\ntune misses (${tune.misses.length}):`);
for (const m of tune.misses) console.log(`  ${m}`);
if (process.argv.includes('--show-held-out')) {
  const h = evaluate(all.filter((l) => l.split === 'held-out'));
  console.log(`\nheld-out misses (${h.misses.length}):`);
  for (const m of h.misses) console.log(`  ${m}`);
}
