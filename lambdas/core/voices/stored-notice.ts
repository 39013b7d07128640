import * as z from 'zod/mini';
import '../text/zod-english.js';
import { type IncidentNotice, runNoticeKind } from './notice.js';

/**
 * Notices from what the workflow stored: a run's history row with its summary JSON (summarize.ts
 * writes both), and the row of a pending approval (approval.ts). Stored text is bounded here (the
 * channels cut further); what is missing or malformed is a {@link StoredNoticeError}, never a guess.
 */

/** A stored row or summary that cannot make a notice (missing field, wrong type). */
export class StoredNoticeError extends Error {
  override readonly name = 'StoredNoticeError';
}

const MAX_LINES = 10;
const MAX_LINE = 2_000;
const text = () => z.string().check(z.minLength(1));
const lines = () =>
  z.pipe(
    z._default(z.array(z.string()), []),
    z.transform((a) => a.slice(0, MAX_LINES).map((l) => l.slice(0, MAX_LINE))),
  );

/** The history row of a run (incident-table.ts `incidentRunKey`). */
export const runRowSchema = z.looseObject({
  incidentId: text(),
  class: text(),
  cluster: text(),
  outcome: text(),
  executionArn: text(),
  summaryJson: z.optional(z.string()),
  closedAt: z.number(),
});
export type RunRow = z.output<typeof runRowSchema>;

/** The parts of the summary JSON (summary.ts `jsonOf`) a notice uses. */
export const summaryJsonSchema = z.looseObject({
  cause: z._default(z.string(), ''),
  node: z.nullish(z.looseObject({ instanceId: z.optional(z.string()), privateDnsName: z.optional(z.string()) })),
  entities: z._default(z.record(z.string(), z.string()), {}),
  evidence: lines(),
  findings: z._default(
    z.array(z.looseObject({ id: z.string(), status: z.string(), summary: z._default(z.string(), '') })),
    [],
  ),
  actions: z._default(z.array(z.looseObject({ id: z.string(), status: z.string() })), []),
  nextStep: z._default(z.string(), ''),
  recommendations: lines(),
  consoleLink: z.optional(z.string()),
});
export type SummaryJson = z.output<typeof summaryJsonSchema>;

/** The row of a pending approval (incident-table.ts `approvalKey`), with what it asks for. */
export const approvalRowSchema = z.looseObject({
  incidentId: text(),
  class: text(),
  cluster: text(),
  /** The node (or other scope) the action is for. */
  where: z._default(z.string(), ''),
  /** What the approval is for: the action or remedy id. */
  action: text(),
  /** The plan text of the review page (its first lines say what and why). */
  page: z._default(z.string(), ''),
  /** The incident's cause and the lines that show it (rows written before they were kept have none). */
  cause: z._default(z.string(), ''),
  evidence: lines(),
  /** Deadline (epoch ms): no answer by then means no action. */
  exp: z.number(),
});
export type ApprovalRow = z.output<typeof approvalRowSchema>;

function parsed<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new StoredNoticeError(`${what}: ${r.error.issues.map((i) => i.message).join('; ')}`);
  return r.data;
}

/** The node, subnet or image of an incident, as its summary names it. */
function whereOf(s: SummaryJson, cluster: string): string {
  return (
    s.node?.privateDnsName ?? s.node?.instanceId ?? s.entities.subnet ?? s.entities.image ?? s.entities.node ?? cluster
  );
}

/** The cause in one sentence: the class, its cause, and the first check that failed. */
function causeOf(cls: string, s: SummaryJson): string {
  const failing = s.findings.find((f) => f.status === 'fail') ?? s.findings.find((f) => f.status === 'warn');
  const cause = s.cause || 'cause not named by the log line';
  return `${cls}: ${cause}${failing ? `; ${failing.id}: ${failing.summary}` : ''}`.slice(0, MAX_LINE);
}

/** The notice of a finished run: its history row and the summary JSON the row links. */
export function runNotice(row: unknown, summary: unknown, at: Date): IncidentNotice {
  const r = parsed(runRowSchema, row, 'history row');
  const s = parsed(summaryJsonSchema, summary ?? {}, `summary of ${r.incidentId}`);
  const kind = runNoticeKind(r.outcome, r.class);
  return {
    kind,
    incidentId: r.incidentId,
    class: r.class,
    cluster: r.cluster,
    where: whereOf(s, r.cluster),
    headline: r.outcome.slice(0, MAX_LINE),
    cause: causeOf(r.class, s),
    evidence: s.evidence,
    findings: s.findings
      .filter((f) => f.status !== 'pass')
      .slice(0, MAX_LINES)
      .map((f) => `${f.status.toUpperCase()} ${f.id}: ${f.summary}`.slice(0, MAX_LINE)),
    actions: s.actions.slice(0, MAX_LINES).map((a) => `${a.id}: ${a.status}`.slice(0, MAX_LINE)),
    nextSteps: [s.nextStep, ...s.recommendations].filter((x) => x.length > 0).slice(0, 5),
    links: [
      ...(s.consoleLink ? [{ label: 'execution', url: s.consoleLink }] : []),
      ...(r.summaryJson ? [{ label: 'summary', url: r.summaryJson }] : []),
    ],
    at: at.toISOString(),
  };
}

/** The notice of an approval request: what waits, for which incident, until when. */
export function approvalNotice(row: unknown, at: Date): IncidentNotice {
  const r = parsed(approvalRowSchema, row, 'approval row');
  const deadline = new Date(r.exp).toISOString();
  const plan = /^PLAN +(.+)$/m.exec(r.page)?.[1] ?? r.action;
  const evidence = r.page
    .split('\n')
    .filter((l) => /^ {2}(FAIL|WARN|ERR) /.test(l))
    .map((l) => l.trim());
  return {
    kind: 'approval-pending',
    incidentId: r.incidentId,
    class: r.class,
    cluster: r.cluster,
    where: r.where || r.cluster,
    headline: `approval needed: ${r.action} on ${r.cluster}/${r.where || r.cluster}`,
    // The cause is the failure's, with the first failing check; the ask is its own field.
    cause:
      `${r.class}: ${r.cause || 'cause not named by the log line'}${evidence[0] ? `; ${evidence[0].replace(/^(FAIL|WARN|ERR) /, '')}` : ''}`.slice(
        0,
        MAX_LINE,
      ),
    ask: `pod-doctor asks before it runs ${r.action}: ${plan}`.slice(0, MAX_LINE),
    evidence: r.evidence,
    findings: evidence.slice(0, MAX_LINES).map((l) => l.slice(0, MAX_LINE)),
    actions: [`${r.action}: waiting for approval until ${deadline}`],
    nextSteps: [
      `review and decide with the signed link in the pod-doctor e-mail before ${deadline} (no answer = no action)`,
    ],
    links: [],
    at: at.toISOString(),
  };
}
