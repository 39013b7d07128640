import * as z from 'zod/mini';
import { REMEDY_IDS } from '../remedy/apply-path.js';
import { ACTION_KINDS_LIST, plannedRequestSchema, SLOTS } from './action-request.js';
import '../text/zod-english.js';

/**
 * `door` in the execution state, as schemas: the door function owns this part of the state and
 * reads it back on every call, so what it reads is exactly what it wrote (validated, never cast).
 */

/** Where the door keeps node commands' full output in the evidence bucket (no node role may write there). */
export const COMMAND_OUTPUT_PREFIX = 'commands';

/** Where the workflow goes after a door call (the caller's continuation). */
export const DOOR_RETURNS = ['diagnose', 'remedy', 'act', 'verify', 'evict', 'summarize', 'report'] as const;
export type DoorReturn = (typeof DOOR_RETURNS)[number];

/** What the door does next: wait and poll a command, ask for approval, or return to the caller. */
/**
 * `await`: a command was sent, its completion event resumes the workflow; `wait`: poll it again after the
 * poll interval (no event came in time, or GetCommandInvocation still lags it); `ask`: the approval wait.
 */
export const DOOR_STEPS = ['await', 'wait', 'ask', 'done'] as const;

/** The outcome of a door call: done (the kind's record), dry-run (what it would do), or nothing done. */
export const DOOR_OUTCOMES = ['done', 'dry-run', 'refused', 'not-approved', 'failed'] as const;

const text = (max: number) => z.string().check(z.maxLength(max));
/** A bounded list, typed read-only (the records it holds are never changed after the fact). */
const list = <T extends z.core.SomeType>(item: T, max: number) => z.readonly(z.array(item).check(z.maxLength(max)));
const lines = (maxLines: number, maxChars = 1_000) => list(text(maxChars), maxLines);
const slot = z.enum(SLOTS);
const kind = z.enum(ACTION_KINDS_LIST);

/** Who answered an approval request and how, or the expiry. */
export const approvalAnswerSchema = z.object({
  approved: z.boolean(),
  reason: text(1_000),
  decidedAt: z.optional(text(64)),
  decidedBy: z.optional(z.object({ sourceIp: z.optional(text(64)), userAgent: z.optional(text(512)) })),
  digest: z.optional(text(64)),
  slot: z.optional(text(32)),
});

/** A finding (lambdas/core/contract/findings.ts), as the state and the door's records keep it. */
export const findingSchema = z.object({
  id: text(128),
  status: z.enum(['pass', 'warn', 'fail', 'error']),
  summary: text(2_000),
  evidence: z.record(z.string(), z.unknown()),
  // A finding built in the workflow definition may leave it out: none is null.
  remediation: z._default(z.nullable(text(2_000)), null),
});

/** A node command as the door read it: full output in S3, an excerpt here. */
export const commandOutcomeSchema = z.object({
  commandId: z.optional(text(64)),
  status: text(64),
  statusDetails: z.optional(text(256)),
  excerpt: text(4_000),
  stderrExcerpt: z.optional(text(2_000)),
  outputKey: z.optional(text(1_024)),
  findings: z.optional(list(findingSchema, 50)),
  facts: z.optional(
    z.object({ sandboxImage: z.optional(text(512)), os: z.optional(text(64)), containerd: z.optional(text(64)) }),
  ),
});

const checkSchema = z.object({
  ok: z.boolean(),
  reason: text(4_000),
  evidence: z.optional(z.record(z.string(), z.unknown())),
  cannot: z.optional(z.boolean()),
});

/** What a remedy's apply path did (lambdas/core/remedy/apply-path.ts ApplyRecord). */
export const applyRecordSchema = z.object({
  remedy: z.enum(REMEDY_IDS),
  change: text(2_000),
  status: z.enum(['not-needed', 'not-applicable', 'dry-run', 'verified', 'rolled-back', 'rollback-failed', 'failed']),
  reason: text(4_000),
  diff: lines(200),
  before: lines(200),
  after: lines(200),
  applied: z.nullable(z.record(z.string(), text(1_024))),
  verification: z.nullable(checkSchema),
  startedAt: text(64),
  finishedAt: text(64),
});

const podFailure = { pod: text(320) };
const evictionReport = {
  evicted: lines(100, 320),
  gone: lines(100, 320),
  blocked: list(z.object({ ...podFailure, budget: text(1_000) }), 100),
  failed: list(z.object({ ...podFailure, error: text(1_000) }), 100),
  skipped: list(z.object({ ...podFailure, why: text(1_000) }), 500),
};

/** What a drain did (lambdas/core/door/drain.ts DrainResult). */
export const drainResultSchema = z.object({
  ...evictionReport,
  terminated: lines(500, 320),
  terminating: lines(500, 320),
  waitedSeconds: z.number(),
  unmanaged: lines(500, 320),
  leftToOthers: z.boolean(),
  complete: z.boolean(),
});

const ref = { namespace: text(253), name: text(253), uid: text(64) };

/** What the eviction of stuck pods did, with what the watch of the re-created pods needs. */
export const evictionsSchema = z.object({
  ...evictionReport,
  dryRun: z.boolean(),
  evictedPods: list(z.object({ ...ref, owner: z.object({ kind: text(64), name: text(253), uid: text(64) }) }), 50),
  startedAt: text(64),
});

/** What the door did with one request (kept under its slot in `door.done`). */
export const doorResultSchema = z.object({
  slot,
  kind,
  line: text(1_000),
  digest: text(64),
  outcome: z.enum(DOOR_OUTCOMES),
  code: z.optional(text(32)),
  reason: text(4_000),
  approval: z.optional(approvalAnswerSchema),
  at: text(64),
  sentAt: z.optional(text(64)),
  command: z.optional(commandOutcomeSchema),
  record: z.optional(applyRecordSchema),
  drain: z.optional(drainResultSchema),
  evictions: z.optional(evictionsSchema),
});

/** A caller's request to the door: the slot, where to go after, and the planned request. */
export const doorCallSchema = z.object({
  /** The call's id (`States.UUID()` in the request Pass): its ledger row, the same on every retry. */
  id: z.optional(z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/))),
  slot,
  returnTo: z.enum(DOOR_RETURNS),
  request: plannedRequestSchema,
});

const tableKey = z.object({ pk: text(2_048), sk: text(1_024) });

/** What the door reserved for a change (given back when it never took effect). */
export const reservationSchema = z.object({
  slotHolder: text(2_200),
  slot: tableKey,
  cooldowns: list(z.object({ key: tableKey, holder: text(2_200) }), 5),
});

/** A command the door sent and polls (what a retried call resumes). */
export const pendingSchema = z.object({
  purpose: z.enum(['evidence', 'action']),
  reservation: z.optional(reservationSchema),
  commandId: text(64),
  instanceId: text(32),
  document: text(256),
  sentAt: text(64),
  polls: z.number(),
  maxPolls: z.number(),
});

/** What the approval request shows and the approval is for. */
export const doorAskSchema = z.object({
  slot,
  kind,
  digest: text(64),
  line: text(1_000),
  description: text(1_000),
  diff: lines(200),
  reason: text(2_000),
});

/** One pass through the door, for the current call. */
export const doorRunSchema = z.object({
  slot,
  step: z.enum(DOOR_STEPS),
  probed: z.boolean(),
  pending: z.optional(pendingSchema),
  ask: z.optional(doorAskSchema),
});

/** `door` as a whole. */
export const doorStateSchema = z.object({
  call: doorCallSchema,
  run: z.optional(doorRunSchema),
  approval: z.optional(approvalAnswerSchema),
  last: z.optional(doorResultSchema),
  done: z._default(z.partialRecord(slot, doorResultSchema), {}),
  lastAction: z.optional(z.object({ slot, kind, sentAt: text(64) })),
  error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
});

export type ApprovalAnswer = z.output<typeof approvalAnswerSchema>;
export type CommandOutcome = z.output<typeof commandOutcomeSchema>;
export type DoorResult = z.output<typeof doorResultSchema>;
export type DoorCall = z.output<typeof doorCallSchema>;
export type DoorAsk = z.output<typeof doorAskSchema>;
export type DoorRun = z.output<typeof doorRunSchema>;
export type PendingCommand = z.output<typeof pendingSchema>;
export type DoorState = z.output<typeof doorStateSchema>;
