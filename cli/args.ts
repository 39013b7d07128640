import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * The one argument parser of every subcommand: node:util's parseArgs, strict. Unknown options and
 * arguments beyond what the command takes are usage errors (exit 2) that name the closest known
 * spelling. Light on purpose: the CLI entry imports it before any command's implementation.
 */

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

/** What a command accepts: its options and how many positional arguments (and what they are). */
export interface ArgsSpec {
  readonly options: OptionSpecs;
  /** At least this many positional arguments (default 0). */
  readonly minPositionals?: number;
  /** At most this many (default 0; `Infinity` for a list). */
  readonly maxPositionals?: number;
  /** What a positional argument is, for messages (`FILE`, `SCENARIO`). */
  readonly positionalName?: string;
}

export type ArgValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface ParsedArgs {
  readonly values: ArgValues;
  readonly positionals: readonly string[];
}

/** A command line the command does not accept; the message says what and, when close, what was meant. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Edit distance (insertions, deletions, substitutions; an adjacent swap counts one). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The candidate closest to `word` when it is close enough to be a typo (or a prefix of exactly one), else undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((c) => word.length >= 2 && c.startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3));
  for (const c of candidates) {
    const distance = editDistance(word, c);
    if (distance <= bestDistance && (best === undefined || distance < bestDistance)) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

const suggestion = (s: string | undefined) => (s ? ` (did you mean ${s}?)` : '');

/** `--name` / `-n` spellings of the options, for suggestions. */
function spellings(options: OptionSpecs): string[] {
  return Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
}

/** True when the arguments ask for help (`-h`/`--help` before a `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

function unknownOption(raw: string, options: OptionSpecs): UsageError {
  const name = raw.split('=')[0];
  return new UsageError(`unknown option ${name}${suggestion(closest(name, spellings(options)))}`);
}

function tooMany(extra: string, spec: ArgsSpec): UsageError {
  const max = spec.maxPositionals ?? 0;
  const takes =
    max === 0 ? 'takes no arguments' : `takes at most ${max} ${spec.positionalName ?? 'argument'}${max > 1 ? 's' : ''}`;
  // `demo json`: a word that is an option without its dashes.
  const flag = closest(`--${extra}`, spellings(spec.options));
  return new UsageError(`unexpected argument "${extra}": the command ${takes}${suggestion(flag)}`);
}

/**
 * Parses a subcommand's arguments strictly. Throws {@link UsageError} for an unknown option (with the
 * closest known one), an option without its value or with one it does not take, and a positional
 * argument too many or too few.
 */
export function parseCommandArgs(args: readonly string[], spec: ArgsSpec): ParsedArgs {
  // A first pass without strictness finds unknown options by name, so the message can suggest one.
  const { tokens } = parseArgs({ args: [...args], options: spec.options, strict: false, tokens: true });
  for (const t of tokens)
    if (t.kind === 'option' && !(t.name in spec.options)) throw unknownOption(t.rawName, spec.options);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...args], options: spec.options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split('. To specify')[0]);
  }
  const { values, positionals } = parsed as unknown as { values: ArgValues; positionals: string[] };
  const max = spec.maxPositionals ?? 0;
  if (positionals.length > max) throw tooMany(positionals[max], spec);
  const min = spec.minPositionals ?? 0;
  if (positionals.length < min) throw new UsageError(`missing ${spec.positionalName ?? 'argument'}`);
  return { values, positionals };
}
