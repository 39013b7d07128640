import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { type LabelledLine, labelledLines } from './corpus.js';

/**
 * The fresh field set (test/fixtures/fresh/*.jsonl): lines from public sources the corpus never mined, each labelled
 * by its thread's cause before any classifier read it, with what the source shows around it. It is a judge, kept
 * out of the corpus: nothing is tuned on it, and only its totals are reported (`npm run corpus:report -- --fresh`).
 * Its lines count as held out: none of them is ever a line to tune on.
 */
export function freshFieldSet(root = PROJECT_ROOT): LabelledLine[] {
  return labelledLines(join(root, 'test', 'fixtures', 'fresh'), () => 'held-out');
}
