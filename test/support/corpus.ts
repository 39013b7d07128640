import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * The labelled corpus the classifier is tuned and measured on:
 *  - test/fixtures/corpus.jsonl: the project's own older corpus (always in the tune split);
 *  - test/fixtures/field/*.jsonl: real lines mined from public sources, each with its URL.
 *
 * Held-out split, fixed BY SOURCE before any tuning: a field source is held out iff the first hex
 * digit of sha256(source URL) is 0, 1, 2 or 3 (a quarter of the sources). Every line of a held-out
 * source is held out, so near-duplicates from one thread never straddle the split.
 */
export type Split = 'tune' | 'held-out';

export interface LabelledLine {
  readonly line: string;
  readonly class: string;
  readonly format: string;
  readonly source: string;
  /** Which file the line came from (`corpus` or the field file name without extension). */
  readonly file: string;
  readonly split: Split;
  /** What surrounds the line in its source, where recorded (the context path reads it; see corpus-report.ts). */
  readonly context?: LineContext;
}

/**
 * A line's context as its source shows it: the lines just before and after it in the same paste (the same log
 * stream, in order), and, for a Kubernetes event, the pod's facts the thread gives (its image, the node's sandbox
 * image, its other events). Every context line is real text from the line's own source.
 */
export interface LineContext {
  readonly before?: readonly string[];
  readonly after?: readonly string[];
  readonly pod?: {
    readonly reason?: string;
    readonly images?: readonly string[];
    readonly sandboxImages?: readonly string[];
    readonly history?: readonly { readonly reason?: string; readonly message?: string }[];
  };
}

const HELD_OUT_DIGITS = new Set(['0', '1', '2', '3']);

/** The split a source belongs to; deterministic, decided by the source URL alone. */
export function splitOf(source: string): Split {
  const first = createHash('sha256').update(source).digest('hex')[0];
  return HELD_OUT_DIGITS.has(first) ? 'held-out' : 'tune';
}

type Row = Record<string, string> & { context?: LineContext };

function readJsonl(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Row);
}

/** The project's own corpus: tune split, format as the reader sees it is not recorded there. */
export function projectCorpus(root = PROJECT_ROOT): LabelledLine[] {
  return readJsonl(join(root, 'test', 'fixtures', 'corpus.jsonl')).map((r) => ({
    line: r.line,
    class: r.class,
    format: r.format ?? 'project',
    source: r.source,
    file: 'corpus',
    split: 'tune' as const,
  }));
}

/** The labelled lines of every *.jsonl file of `dir` (none when it does not exist), each split by `split`. */
export function labelledLines(dir: string, split: (source: string) => Split): LabelledLine[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .flatMap((f) =>
      readJsonl(join(dir, f)).map((r) => ({
        line: r.line,
        class: r.class,
        format: r.format,
        source: r.source,
        file: f.replace(/\.jsonl$/, ''),
        split: split(r.source),
        ...(r.context ? { context: r.context } : {}),
      })),
    );
}

/** Field lines from every test/fixtures/field/*.jsonl file, each with its split. */
export function fieldCorpus(root = PROJECT_ROOT): LabelledLine[] {
  return labelledLines(join(root, 'test', 'fixtures', 'field'), splitOf);
}

/** Everything: the project corpus and the field corpus. */
export function labelledCorpus(root = PROJECT_ROOT): LabelledLine[] {
  return [...projectCorpus(root), ...fieldCorpus(root)];
}
