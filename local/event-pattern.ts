/**
 * EventBridge event-pattern matching, as EventBridge (aws/event-ruler) decides it, for testing rule
 * patterns offline (TestEventPattern needs an account). Semantics, from the event-ruler README
 * (github.com/aws/event-ruler) and docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html:
 * - every field named in the pattern must match (AND); a field matches when any value in its list does (OR);
 * - an event array matches when any of its elements does;
 * - a field absent from the event matches only `{ "exists": false }` (the automaton only ever steps
 *   on fields the event has: `anything-but`, `prefix`, … never match an absent field);
 * - `exists` works on leaves only: an object-valued field does not "exist" for it;
 * - `$or` (an array of two or more sub-patterns) matches when one of them does.
 * Operators: exact string / number / boolean / null, prefix, suffix, equals-ignore-case, wildcard,
 * anything-but (value, list, {prefix}, {suffix}, {equals-ignore-case}, {wildcard}), numeric, exists.
 */
type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
type Leaf = string | number | boolean | null;

export class PatternError extends Error {
  override readonly name = 'PatternError';
}

/** Does `event` match `pattern`? */
export function matchesEventPattern(pattern: Record<string, unknown>, event: unknown): boolean {
  return matchObject(pattern, event as Json);
}

function matchObject(pattern: Record<string, unknown>, event: Json | undefined): boolean {
  return Object.entries(pattern).every(([key, p]) => {
    if (key === '$or' && Array.isArray(p) && p.length >= 2 && p.every(isPlainObject)) {
      return p.some((sub) => matchObject(sub as Record<string, unknown>, event));
    }
    const values = fieldValues(event, key);
    if (isPlainObject(p)) {
      const objects = values.filter(isPlainObject);
      // A nested pattern with only exists:false sub-fields also matches when the parent is absent.
      return objects.length ? objects.some((o) => matchObject(p, o)) : matchObject(p, undefined);
    }
    if (!Array.isArray(p)) throw new PatternError(`pattern field "${key}" must be an array or an object`);
    const leaves = values.filter((v): v is Leaf => !isPlainObject(v));
    return p.some((m) => matchLeafPattern(m, leaves));
  });
}

/** The values of `key` in `event`, arrays flattened (event-ruler matches any element). */
function fieldValues(event: Json | undefined, key: string): Json[] {
  if (event === undefined || event === null) return [];
  const containers = flatten(event);
  const out: Json[] = [];
  for (const c of containers) {
    if (!isPlainObject(c) || !(key in c)) continue;
    out.push(...flatten((c as Record<string, Json>)[key]));
  }
  return out;
}

function flatten(v: Json): Json[] {
  return Array.isArray(v) ? v.flatMap((x) => flatten(x)) : [v];
}

function matchLeafPattern(m: unknown, leaves: Leaf[]): boolean {
  if (!isPlainObject(m)) return leaves.some((v) => v === m);
  const [op, arg] = Object.entries(m as Record<string, unknown>)[0] ?? [];
  if (op === 'exists') return arg === true ? leaves.length > 0 : leaves.length === 0;
  return leaves.some((v) => matchOperator(op, arg, v));
}

function matchOperator(op: string | undefined, arg: unknown, v: Leaf): boolean {
  switch (op) {
    case 'prefix':
      return typeof v === 'string' && stringOp(arg, (s, ci) => fold(v, ci).startsWith(fold(s, ci)));
    case 'suffix':
      return typeof v === 'string' && stringOp(arg, (s, ci) => fold(v, ci).endsWith(fold(s, ci)));
    case 'equals-ignore-case':
      return typeof v === 'string' && typeof arg === 'string' && v.toLowerCase() === arg.toLowerCase();
    case 'wildcard':
      return typeof v === 'string' && typeof arg === 'string' && wildcard(arg).test(v);
    case 'numeric':
      return typeof v === 'number' && numeric(arg as (string | number)[], v);
    case 'anything-but':
      return anythingBut(arg, v);
    default:
      throw new PatternError(`unsupported operator ${String(op)}`);
  }
}

function anythingBut(arg: unknown, v: Leaf): boolean {
  if (Array.isArray(arg)) return !arg.includes(v);
  if (isPlainObject(arg)) {
    const [op, inner] = Object.entries(arg as Record<string, unknown>)[0] ?? [];
    const list = Array.isArray(inner) ? inner : [inner];
    return !list.some((i) => matchOperator(op, i, v));
  }
  return v !== arg;
}

/** `prefix`/`suffix` take a string or `{ "equals-ignore-case": string }`. */
function stringOp(arg: unknown, test: (s: string, caseInsensitive: boolean) => boolean): boolean {
  if (typeof arg === 'string') return test(arg, false);
  const ci = (arg as Record<string, unknown> | null)?.['equals-ignore-case'];
  if (typeof ci === 'string') return test(ci, true);
  throw new PatternError(`bad string operator argument ${JSON.stringify(arg)}`);
}

const fold = (s: string, ci: boolean) => (ci ? s.toLowerCase() : s);

function wildcard(p: string): RegExp {
  if (p.includes('**')) throw new PatternError('consecutive wildcard characters are not allowed');
  const body = p
    .split(/(\\\*|\\\\|\*)/)
    .map((part) => (part === '*' ? '.*' : part === '\\*' ? '\\*' : part === '\\\\' ? '\\\\' : escapeRe(part)))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function numeric(conds: (string | number)[], v: number): boolean {
  for (let i = 0; i < conds.length; i += 2) {
    const [op, n] = [conds[i], Number(conds[i + 1])];
    const ok =
      op === '='
        ? v === n
        : op === '<'
          ? v < n
          : op === '<='
            ? v <= n
            : op === '>'
              ? v > n
              : op === '>='
                ? v >= n
                : null;
    if (ok === null) throw new PatternError(`bad numeric operator ${String(op)}`);
    if (!ok) return false;
  }
  return true;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
