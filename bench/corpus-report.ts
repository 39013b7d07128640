/**
 * Corpus report (npm run corpus:report): statistics by class, format and source; accuracy and
 * per-class precision/recall on the tune split and, separately, on the held-out split; the share of
 * failure lines the derived subscription filter lets through. Misses are listed for the tune split
 * only: the held-out split is scored, never inspected (pass --show-held-out after the catalogue is frozen;
 * --tune-only leaves the held-out figures out while tuning).
 */
import { buildFilterPattern } from '../lambdas/core/filter-pattern.js';
import { compileFilterPattern } from '../test/support/cloudwatch-filter.js';
import { fieldCorpus, type LabelledLine, labelledCorpus } from '../test/support/corpus.js';
import { countBy, type Evaluation, evaluate } from '../test/support/corpus-report.js';

const all = labelledCorpus();
const field = fieldCorpus();
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(title: string, rows: [string, number][], limit = 40): void {
  console.log(`\n${title}`);
  for (const [k, n] of rows.slice(0, limit)) console.log(`  ${String(n).padStart(5)}  ${k}`);
  if (rows.length > limit) console.log(`  … ${rows.length - limit} more`);
}

function scores(name: string, lines: readonly LabelledLine[]): Evaluation {
  const e = evaluate(lines);
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
