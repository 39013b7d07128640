import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * Program strings: log and error strings the node's programs print on a failure path (and the healthy
 * strings that share their words), rendered as a node prints them, each labelled by what the program
 * is doing when it prints it and citing the program's source file at the commit read
 * (test/fixtures/program/*.jsonl). They are not field lines: they never enter the field corpus or
 * its held-out split; they test that the catalogue covers every string a failure path prints.
 */
export interface ProgramString {
  /** The line as the node prints it (containerd logfmt, kubelet klog, a kubectl describe event row …). */
  readonly line: string;
  /** What the program is doing when it prints the line: a failure class, or `unknown` for a healthy path. */
  readonly class: string;
  /** How the line is rendered (containerd-logfmt, klog, kubectl-describe, raw …). */
  readonly format: string;
  /** The program's source file at the commit read: https://github.com/<owner>/<repo>/blob/<40-hex commit>/<path>. */
  readonly source: string;
  /** The format string(s) the line is printed from, outermost first. */
  readonly template: string;
  /** The program that prints the line (containerd, kubelet, ipamd …). */
  readonly program: string;
}

const SOURCE = /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/blob\/[0-9a-f]{40}\/\S+$/;

/** Thrown for a fixture row that is not a well-formed program string. */
export class ProgramStringFixtureError extends Error {
  override readonly name = 'ProgramStringFixtureError';
}

function checked(row: Record<string, unknown>, where: string): ProgramString {
  for (const key of ['line', 'class', 'format', 'source', 'template', 'program'] as const) {
    if (typeof row[key] !== 'string' || row[key] === '') throw new ProgramStringFixtureError(`${where}: no ${key}`);
  }
  const s = row as unknown as ProgramString;
  if (!(FAILURE_CLASSES as readonly string[]).includes(s.class))
    throw new ProgramStringFixtureError(`${where}: class ${s.class} is not a failure class`);
  if (!SOURCE.test(s.source))
    throw new ProgramStringFixtureError(`${where}: source ${s.source} is not a file at a commit`);
  return s;
}

/** The program strings of test/fixtures/program/<name>.jsonl, validated. */
export function programStrings(name: string, root = PROJECT_ROOT): ProgramString[] {
  const path = join(root, 'test', 'fixtures', 'program', `${name}.jsonl`);
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l, i) => checked(JSON.parse(l) as Record<string, unknown>, `${name}.jsonl:${i + 1}`));
}

/** Rows counted by class, for reports and floors. */
export function countByClass(rows: readonly ProgramString[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.class] = (counts[r.class] ?? 0) + 1;
  return counts;
}
