import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import type { LabelledLine, LineContext } from './corpus.js';

/**
 * The fresh field set (test/fixtures/fresh/*.jsonl): lines from public sources the corpus never mined, each labelled
 * by its thread's cause before any classifier read it, with what the source shows around it. It is a judge, kept
 * out of the corpus: nothing is tuned on it, and only its totals are reported (`npm run corpus:report -- --fresh`).
 */
export function freshFieldSet(root = PROJECT_ROOT): LabelledLine[] {
  const dir = join(root, 'test', 'fixtures', 'fresh');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .map(
          (l) =>
            JSON.parse(l) as { line: string; class: string; format: string; source: string; context?: LineContext },
        )
        .map((r) => ({
          line: r.line,
          class: r.class,
          format: r.format,
          source: r.source,
          file: f.replace(/\.jsonl$/, ''),
          split: 'held-out' as const,
          ...(r.context ? { context: r.context } : {}),
        })),
    );
}
