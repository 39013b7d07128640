import { classify } from '../../lambdas/core/detect/classifier.js';
import { classifyStream } from '../../lambdas/core/detect/context.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { refineWithPodFacts } from '../../lambdas/core/detect/pod-facts.js';
import { parseRecord } from '../../lambdas/core/detect/records.js';
import { compileFilterPattern } from './cloudwatch-filter.js';
import type { LabelledLine } from './corpus.js';

/** How a line is read: alone (the single-line classifier), or with what its source shows around it. */
export type Reader = (l: LabelledLine) => string;

/** The single-line classifier, the fast path. */
export const singleLine: Reader = (l) => classify(l.line).class;

let delivered: ((line: string) => boolean) | undefined;

/**
 * The context path as the ingest function runs it: the line with its neighbours from the same paste, keeping only
 * the neighbours the subscription filter lets through (the function never sees the others), read by classifyStream;
 * a Kubernetes event with the pod's facts the thread gives, read by refineWithPodFacts. A paste records order, not
 * time: its lines are taken as one window. Without recorded context it is the single-line reading.
 */
export const inContext: Reader = (l) => {
  const ctx = l.context;
  if (!ctx) return singleLine(l);
  delivered ??= compileFilterPattern(buildFilterPattern());
  const pass = delivered;
  const before = (ctx.before ?? []).filter((x) => pass(x));
  const after = (ctx.after ?? []).filter((x) => pass(x));
  const stream = [...before, l.line, ...after].map((record) => ({ record, at: 0 }));
  const reading = classifyStream(stream)[before.length];
  const streamClass = reading.classification?.class ?? 'unknown';
  if (!ctx.pod) return streamClass;
  const parsed = parseRecord(l.line);
  const refined = refineWithPodFacts(
    { reason: ctx.pod.reason ?? parsed.reason, message: parsed.message },
    { images: ctx.pod.images, sandboxImages: ctx.pod.sandboxImages, history: ctx.pod.history },
  );
  return refined.by === 'message' ? streamClass : refined.class;
};

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

/** Accuracy and per-class precision/recall of a reader (the single-line classifier by default) on labelled lines. */
export function evaluate(lines: readonly LabelledLine[], read: Reader = singleLine): Evaluation {
  const support = new Map<string, number>();
  const predicted = new Map<string, number>();
  const correct = new Map<string, number>();
  const misses: string[] = [];
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const l of lines) {
    const got = read(l);
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
