import { classify } from '../../lambdas/core/classifier.js';
import type { LabelledLine } from './corpus.js';

export interface ClassScore {
  readonly support: number;
  readonly predicted: number;
  readonly correct: number;
  /** correct / predicted (1 when nothing was predicted). */
  readonly precision: number;
  /** correct / support (1 when the class has no lines). */
  readonly recall: number;
}

export interface Evaluation {
  readonly lines: number;
  readonly accuracy: number;
  readonly perClass: Readonly<Record<string, ClassScore>>;
  /** `label <- predicted: line` for every miss (print only for the tune split). */
  readonly misses: readonly string[];
}

/** Accuracy and per-class precision/recall of the classifier on labelled lines. */
export function evaluate(lines: readonly LabelledLine[]): Evaluation {
  const support = new Map<string, number>();
  const predicted = new Map<string, number>();
  const correct = new Map<string, number>();
  const misses: string[] = [];
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const l of lines) {
    const got = classify(l.line).class;
    bump(support, l.class);
    bump(predicted, got);
    if (got === l.class) bump(correct, got);
    else misses.push(`${l.class} <- ${got} [${l.format}] ${l.line.slice(0, 160)}`);
  }
  const classes = [...new Set([...support.keys(), ...predicted.keys()])].sort();
  const perClass = Object.fromEntries(
    classes.map((c) => {
      const s = support.get(c) ?? 0;
      const p = predicted.get(c) ?? 0;
      const k = correct.get(c) ?? 0;
      return [c, { support: s, predicted: p, correct: k, precision: p === 0 ? 1 : k / p, recall: s === 0 ? 1 : k / s }];
    }),
  );
  const right = [...correct.values()].reduce((a, b) => a + b, 0);
  return { lines: lines.length, accuracy: lines.length === 0 ? 1 : right / lines.length, perClass, misses };
}

/** Counts by a key, largest first. */
export function countBy<T>(items: readonly T[], key: (t: T) => string): [string, number][] {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
