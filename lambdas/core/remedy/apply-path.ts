/**
 * The apply-path discipline every account remedy follows: re-check that the cause still holds, make
 * the smallest change, show the before/after diff (dry run stops there), verify after the change, and
 * roll back automatically when verification fails. Pure: each path reaches AWS only through the port
 * it was built with; the clock is an argument.
 */

/** Account remedies pod-doctor can apply (ids are a contract: config keys, summaries, tests). */
export const REMEDY_IDS = [
  'attach-managed-policy',
  'add-sg-rule',
  'create-cidr-reservation',
  'create-pull-through-cache',
  'use-secondary-ips',
  // Cluster remedies (lambdas/core/remedy/kubernetes-paths.ts), run by the Kubernetes function.
  'restart-aws-node',
  'enable-windows-ipam',
  // A Deployment's rollout undone (lambdas/core/remedy/rollout-rollback.ts), run by the door through the cluster's API.
  'rollback-deployment',
] as const;
export type RemedyId = (typeof REMEDY_IDS)[number];

/** How an apply path may run: `dry-run` shows the diff only; `approve` waits for a human; `auto` runs. */
export const REMEDY_TIERS = ['dry-run', 'approve', 'auto'] as const;
/** One of `REMEDY_TIERS`: how an apply path may run. */
export type RemedyTier = (typeof REMEDY_TIERS)[number];

/** The outcome of a re-check: does the cause still hold, or did verification pass. */
export interface Check {
  readonly ok: boolean;
  readonly reason: string;
  readonly evidence?: Record<string, unknown>;
  /** With `ok: false`: the change cannot address the cause (as opposed to: the cause is gone). */
  readonly cannot?: boolean;
}

/** One apply path, bound to its target and port. `S` is the state it reads (before / after). */
export interface ApplyPath<S> {
  readonly id: RemedyId;
  /** One line: the change, e.g. "attach arn:aws:iam::aws:policy/X to role Y". */
  readonly change: string;
  /** Reads the current state of the target, including the diagnosis re-check. */
  read(): Promise<S>;
  /** `ok` when the cause still holds in this state and the change can address it. */
  causeHolds(state: S): Check;
  /** The state after the smallest change. */
  planned(state: S): S;
  /** The state as diff lines (one fact per line, stable order). */
  render(state: S): readonly string[];
  /** Makes the change; returns what the rollback needs (ids AWS assigned). */
  apply(): Promise<Record<string, string>>;
  /** Re-checks after the change. */
  verify(state: S): Promise<Check>;
  /** Undoes the change made by `apply`. */
  rollback(applied: Record<string, string>): Promise<void>;
}

export type ApplyStatus =
  | 'not-needed'
  | 'not-applicable'
  | 'dry-run'
  | 'verified'
  | 'rolled-back'
  | 'rollback-failed'
  | 'failed';

/** What an apply path did, for the summary and the evidence bucket. */
export interface ApplyRecord {
  readonly remedy: RemedyId;
  readonly change: string;
  readonly status: ApplyStatus;
  /** Why this status, in one sentence. */
  readonly reason: string;
  /** Unified diff lines of the state: "  same", "- before", "+ after". */
  readonly diff: readonly string[];
  readonly before: readonly string[];
  /** The state read after the change (or after the rollback), or the planned state in a dry run. */
  readonly after: readonly string[];
  /** What the change created (ids for the rollback); null when nothing was applied. */
  readonly applied: Record<string, string> | null;
  /** The re-check after the change; null when nothing was applied. */
  readonly verification: Check | null;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** Line diff of two renderings (both in a stable order): kept lines, removed lines, added lines. */
export function diffLines(before: readonly string[], after: readonly string[]): string[] {
  const a = new Set(after);
  const b = new Set(before);
  return [
    ...before.map((l) => (a.has(l) ? `  ${l}` : `- ${l}`)),
    ...after.filter((l) => !b.has(l)).map((l) => `+ ${l}`),
  ];
}

export interface RunOptions {
  /** Show the diff, change nothing. */
  readonly dryRun: boolean;
  readonly now: () => number;
}

const iso = (t: number) => new Date(t).toISOString();
const failure = (e: unknown) => `${(e as Error)?.name ?? 'Error'}: ${(e as Error)?.message ?? String(e)}`;

/** The state before a change, the cause as it holds now, and the diff of the smallest change. */
export interface Prepared<S> {
  readonly before: S;
  readonly lines: readonly string[];
  readonly cause: Check;
  readonly planned: readonly string[];
  readonly diff: readonly string[];
  readonly startedAt: string;
}

type RecordBase = Pick<ApplyRecord, 'remedy' | 'change' | 'startedAt'>;

function record(
  r: Omit<ApplyRecord, 'finishedAt' | 'before' | 'after' | 'diff' | 'applied' | 'verification'> & Partial<ApplyRecord>,
  now: () => number,
): ApplyRecord {
  return { before: [], after: [], diff: [], applied: null, verification: null, ...r, finishedAt: iso(now()) };
}

/** Reads the current state, re-checks the cause and computes the diff; a failed read is a `failed` record. */
export async function preparePath<S>(
  path: ApplyPath<S>,
  now: () => number,
): Promise<{ readonly prepared: Prepared<S> } | { readonly failed: ApplyRecord }> {
  const startedAt = iso(now());
  let before: S;
  try {
    before = await path.read();
  } catch (e) {
    const base = { remedy: path.id, change: path.change, startedAt };
    return {
      failed: record({ ...base, status: 'failed', reason: `could not read the current state: ${failure(e)}` }, now),
    };
  }
  const lines = path.render(before);
  const cause = path.causeHolds(before);
  const planned = cause.ok ? path.render(path.planned(before)) : lines;
  return { prepared: { before, lines, cause, planned, diff: cause.ok ? diffLines(lines, planned) : [], startedAt } };
}

/** The record of a prepared path that does not change anything: the cause gone or not addressable, or a dry run. */
export function unchangedRecord<S>(path: ApplyPath<S>, p: Prepared<S>, now: () => number): ApplyRecord {
  const base: RecordBase = { remedy: path.id, change: path.change, startedAt: p.startedAt };
  if (!p.cause.ok)
    return record(
      {
        ...base,
        status: p.cause.cannot ? 'not-applicable' : 'not-needed',
        reason: p.cause.reason,
        before: p.lines,
        after: p.lines,
      },
      now,
    );
  return record(
    {
      ...base,
      status: 'dry-run',
      reason: `dry run: ${p.cause.reason}`,
      before: p.lines,
      after: p.planned,
      diff: p.diff,
    },
    now,
  );
}

export interface ApplyOptions {
  readonly now: () => number;
  /**
   * Asked right before a rollback: why it must not run (the door's gate for the rollback request,
   * e.g. the kill switch), or undefined. @default - the rollback runs
   */
  readonly mayRollBack?: () => Promise<string | undefined>;
}

/** Makes the prepared change, verifies it, and rolls it back when verification fails. Never throws. */
export async function applyPrepared<S>(path: ApplyPath<S>, p: Prepared<S>, o: ApplyOptions): Promise<ApplyRecord> {
  const base: RecordBase = { remedy: path.id, change: path.change, startedAt: p.startedAt };
  let applied: Record<string, string>;
  try {
    applied = await path.apply();
  } catch (e) {
    return record(
      {
        ...base,
        status: 'failed',
        reason: `the change failed: ${failure(e)}`,
        before: p.lines,
        after: p.lines,
        diff: p.diff,
      },
      o.now,
    );
  }
  const verification = await verifySafely(path);
  if (verification.check.ok)
    return record(
      {
        ...base,
        status: 'verified',
        reason: verification.check.reason,
        before: p.lines,
        after: verification.lines,
        diff: diffLines(p.lines, verification.lines),
        applied,
        verification: verification.check,
      },
      o.now,
    );
  const refused = await o.mayRollBack?.();
  const kept = { ...base, before: p.lines, diff: p.diff, applied, verification: verification.check };
  if (refused)
    return record(
      {
        ...kept,
        status: 'rollback-failed',
        reason: `verification failed (${verification.check.reason}); the rollback was refused: ${refused}`,
        after: verification.lines,
      },
      o.now,
    );
  return record(await rollBack(path, kept), o.now);
}

/** Runs one apply path under the discipline (prepare, then the dry run or the change); never throws. */
export async function runApplyPath<S>(path: ApplyPath<S>, o: RunOptions): Promise<ApplyRecord> {
  const r = await preparePath(path, o.now);
  if ('failed' in r) return r.failed;
  if (!r.prepared.cause.ok || o.dryRun) return unchangedRecord(path, r.prepared, o.now);
  return applyPrepared(path, r.prepared, { now: o.now });
}

async function verifySafely<S>(path: ApplyPath<S>): Promise<{ check: Check; lines: readonly string[] }> {
  try {
    const after = await path.read();
    return { check: await path.verify(after), lines: path.render(after) };
  } catch (e) {
    return { check: { ok: false, reason: `verification could not run: ${failure(e)}` }, lines: [] };
  }
}

async function rollBack<S>(
  path: ApplyPath<S>,
  r: Pick<ApplyRecord, 'remedy' | 'change' | 'startedAt' | 'before' | 'diff' | 'applied' | 'verification'>,
): Promise<Omit<ApplyRecord, 'finishedAt'>> {
  const why = `verification failed (${r.verification?.reason}); `;
  try {
    await path.rollback(r.applied ?? {});
    const after = path.render(await path.read());
    const restored = undone(r.diff, after);
    return restored
      ? { ...r, status: 'rolled-back', reason: `${why}the change was rolled back`, after }
      : {
          ...r,
          status: 'rollback-failed',
          reason: `${why}after the rollback the change is still (partly) in place`,
          after,
        };
  } catch (e) {
    return { ...r, status: 'rollback-failed', reason: `${why}the rollback failed: ${failure(e)}`, after: [] };
  }
}

/**
 * Whether the planned change is gone from a state: no added line remains, every removed line is back.
 * Lines the change did not touch may differ (another actor's concurrent change is not ours to undo).
 */
function undone(diff: readonly string[], after: readonly string[]): boolean {
  const now = new Set(after);
  return diff.every((l) =>
    l.startsWith('+ ') ? !now.has(l.slice(2)) : l.startsWith('- ') ? now.has(l.slice(2)) : true,
  );
}
