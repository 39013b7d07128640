import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DrainPlan } from '../../core/drain.js';
import type { EvictPlan } from '../../core/evict-after-repair.js';
import type { Finding } from '../../core/findings.js';
import { outboundFields } from '../../core/outbound.js';
import type { PlannedAction } from '../../core/policy.js';
import type { CommandResult } from '../../core/probe.js';
import type { ApplyRecord } from '../../core/remedy/apply-path.js';
import type { PlannedRemedy } from '../../core/remedy/plan.js';
import { type ActionRecord, type ApprovalRecord, outputExcerpt, renderSummary } from '../../core/summary.js';
import { verificationFailed } from '../../core/voices/notice.js';
import type { IncidentInput, WorkflowConfig } from '../../core/workflow-config.js';
import { putNewObject } from '../evidence-store.js';
import { clusterActionKey, incidentRunKey, lockKey, nodeCooldownKey } from '../incident-table.js';
import { type Reservation, releaseReservation } from './reservations.js';
import { type DrainState, drainAction, drainOf, settleDrain, withDrain } from './summarize-drain.js';
import { type EvictState, evictAction, evictOf, settleEviction, withEviction } from './summarize-evict.js';
import { approvalsOf, followUpOnly, outcomeOf } from './summarize-outcome.js';
import type { Verification } from './verify.js';

export interface SummarizeInput extends IncidentInput, DrainState, EvictState {
  /** Set by the workflow's first state from the context object. */
  readonly execution: { readonly arn: string; readonly startedAt?: string };
  readonly open?: { openedAt?: number; region?: string };
  readonly node?: { instanceId?: string; privateDnsName?: string; nodegroupName?: string };
  readonly plan?: {
    decision?: string;
    actions?: PlannedAction[];
    findings?: Finding[];
    recommendations?: string[];
    reasons?: string[];
    /** The approval answer sits with what it answered ("Request approval", "Request remedy approval"). */
    nodeAction?: { id: string; documentName: string; approval?: ApprovalRecord } | null;
    remedy?: (PlannedRemedy & { approval?: ApprovalRecord }) | null;
    drain?: DrainPlan | null;
    evict?: EvictPlan | null;
  };
  /** "Prepare remedy": the re-check and the dry-run diff. */
  readonly remedyPrepared?: ApplyRecord;
  /** "Apply remedy": the change, its verification and any rollback. */
  readonly remedyApplied?: ApplyRecord;
  /** The first remedy's record and plan when the plan's follow-up remedy ran after it ("Keep first remedy"). */
  readonly remedyFirst?: ApplyRecord & { plan?: { approval?: ApprovalRecord } };
  readonly action?: NodeActionRun;
  /** The first node action when the plan's follow-up ran after it ("Keep first action"). */
  readonly previous?: { nodeAction?: { id: string; approval?: ApprovalRecord }; action?: NodeActionRun };
  readonly verification?: Verification;
  /** The gate right before Act refused (Catch of "Act: gate"): ActBlockedError and its reason. */
  readonly actBlocked?: { Error?: string; Cause?: string };
  readonly error?: { Error?: string; Cause?: string };
}

/** What an Act step leaves in the state: when and what it sent, and the result. */
export interface NodeActionRun {
  /** What "Act: gate" reserved (released here when the command never ran on the node). */
  readonly gate?: { reservation?: Reservation };
  readonly sent?: { commandId?: string };
  readonly sentAt?: string;
  readonly result?: CommandResult;
  readonly error?: { Error?: string; Cause?: string };
}

export interface SummarizeDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly config: WorkflowConfig;
  readonly metrics: Metrics;
  readonly now: () => number;
}

/**
 * Summarize and record: evidence JSON + Markdown in S3, a history row linking both, action bookkeeping,
 * lock release. The state is made outbound text first (one line per field, no secrets): everything
 * stored, mailed or returned here derives from it.
 */
export async function summarizeIncident(state: SummarizeInput, deps: SummarizeDeps) {
  const s = outboundFields(state);
  const now = deps.now();
  const drain = drainOf(s);
  const evict = evictOf(s);
  const { outcome, nextStep, actionStatus } = withEviction(withDrain(outcomeOf(s), drain), evict);
  const actions = [
    ...actionRecords(s, actionStatus),
    ...(drain ? [drainAction(s, drain)] : []),
    ...(evict ? [evictAction(s, evict)] : []),
  ];
  const summary = summaryOf(s, { outcome, nextStep, actions });
  const keys = await storeSummary(s, summary, deps);
  await recordHistory(s, { outcome, ...keys }, now, deps);
  await settleNodeActions(s, deps);
  await releaseLock(s, deps);
  emitMetrics(s, { outcome, actions }, now, deps.metrics);
  return {
    subject: summary.subject,
    message: summary.text,
    outcome,
    summaryJson: keys.jsonKey,
    summaryMarkdown: keys.markdownKey,
  };
}

/** What was done: the account remedy, then the first node action (when a follow-up ran) and the plan's node action. */
function actionRecords(s: SummarizeInput, actionStatus: string | undefined): ActionRecord[] {
  const actions: ActionRecord[] = [...remedyActions(s)];
  if (s.previous?.nodeAction)
    actions.push({
      id: s.previous.nodeAction.id,
      commandId: s.previous.action?.sent?.commandId,
      status: s.previous.action?.result?.status ?? 'not run',
      outputExcerpt: outputExcerpt(s.previous.action?.result?.stdout),
    });
  if (s.plan?.nodeAction)
    actions.push({
      id: s.plan.nodeAction.id,
      commandId: s.action?.sent?.commandId,
      status: actionStatus ?? 'not run',
      outputExcerpt: outputExcerpt(s.action?.result?.stdout),
    });
  return actions;
}

/** The rendered summary of the workflow state, its outcome and the actions taken. */
function summaryOf(
  s: SummarizeInput,
  r: { outcome: string; nextStep: string; actions: ActionRecord[] },
): ReturnType<typeof renderSummary> {
  return renderSummary({
    incident: s,
    node: s.node,
    findings: s.plan?.findings ?? [],
    plannedActions: s.plan?.actions ?? [],
    actions: r.actions,
    outcome: r.outcome,
    nextStep: r.nextStep,
    recommendations: s.plan?.recommendations ?? [],
    reasons: [
      ...(s.plan?.reasons ?? []),
      // How the repair was (or was not) verified: the pods that started, or what still fails.
      ...(s.verification ? [`verification: ${s.verification.reason}`] : []),
    ],
    executionArn: s.execution.arn,
    region: s.open?.region ?? process.env.AWS_REGION ?? 'us-east-1',
    error: s.error,
    approvals: approvalsOf(s),
  });
}

/**
 * The summary's JSON (with the subject) and Markdown in the evidence bucket, under the incident and
 * execution, as new objects only (the bucket refuses overwrites): summarizing the same run again
 * ("Record failure" after "Summarize") writes `summary.1.json` next to the first.
 */
async function storeSummary(
  s: SummarizeInput,
  summary: ReturnType<typeof renderSummary>,
  deps: SummarizeDeps,
): Promise<{ jsonKey: string; markdownKey: string }> {
  const prefix = `incidents/${s.incidentId}/${s.execution.arn.split(':').pop()}`;
  const put = async (name: string, ext: string, Body: string, ContentType: string) =>
    String(
      await putNewObject(
        deps.s3,
        { Bucket: deps.config.evidenceBucket, Key: `${prefix}/${name}.${ext}`, Body, ContentType },
        (n) => `${prefix}/${name}.${n}.${ext}`,
      ),
    );
  const jsonKey = await put(
    'summary',
    'json',
    JSON.stringify({ ...summary.json, subject: summary.subject }, null, 2),
    'application/json',
  );
  const markdownKey = await put('summary', 'md', summary.markdown, 'text/markdown');
  return { jsonKey, markdownKey };
}

/** The incident's history row: outcome, decision and links to the stored summary; expires after the retention. */
async function recordHistory(
  s: SummarizeInput,
  r: { outcome: string; jsonKey: string; markdownKey: string },
  now: number,
  deps: SummarizeDeps,
): Promise<void> {
  const { config } = deps;
  const expiresAt = Math.floor(now / 1000) + config.historyRetentionDays * 86_400;
  await deps.ddb.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...incidentRunKey(s.incidentKey, s.open?.openedAt ?? now, String(s.execution.arn.split(':').pop())),
        incidentId: s.incidentId,
        class: s.class,
        cluster: s.cluster,
        outcome: r.outcome,
        decision: s.plan?.decision ?? null,
        executionArn: s.execution.arn,
        summaryJson: `s3://${config.evidenceBucket}/${r.jsonKey}`,
        summaryMarkdown: `s3://${config.evidenceBucket}/${r.markdownKey}`,
        closedAt: now,
        expiresAt,
      },
    }),
  );
}

/** Gives back what "Act: gate" reserved when the command never ran, and records the node actions that were sent. */
async function settleNodeActions(s: SummarizeInput, deps: SummarizeDeps): Promise<void> {
  const reservation = s.action?.gate?.reservation;
  if (reservation && !ranOnNode(s.action))
    await releaseReservation(reservation, { ddb: deps.ddb, tableName: deps.config.tableName });
  for (const run of [s.previous, s.plan?.nodeAction ? { nodeAction: s.plan.nodeAction, action: s.action } : undefined])
    if (run?.nodeAction && run.action) await recordNodeAction(s, run.nodeAction.id, run.action, deps);
  const table = { ddb: deps.ddb, tableName: deps.config.tableName };
  const drainedAt = await settleDrain(s, table);
  if (drainedAt)
    await recordNodeAction(s, 'drain-node', { sent: { commandId: 'kubernetes-api' }, sentAt: drainedAt }, deps);
  const evictedAt = await settleEviction(s, table);
  if (evictedAt)
    await recordNodeAction(s, 'evict-stuck-pods', { sent: { commandId: 'kubernetes-api' }, sentAt: evictedAt }, deps);
}

/** Releases the incident lock if this execution still holds it (another execution may have taken it over). */
async function releaseLock(s: SummarizeInput, deps: SummarizeDeps): Promise<void> {
  try {
    await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.config.tableName,
        Key: lockKey(s.incidentKey),
        UpdateExpression: 'SET lockedUntil = :zero',
        ConditionExpression: 'executionId = :me',
        ExpressionAttributeValues: { ':zero': 0, ':me': s.execution.arn },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}

/**
 * Incidents by class, outcomes by their headline (before the first ":" or ";"), each action by its
 * status word, verification failures, and the time from first sighting to a verified repair.
 */
function emitMetrics(
  s: SummarizeInput,
  r: { outcome: string; actions: readonly ActionRecord[] },
  now: number,
  metrics: Metrics,
): void {
  const { outcome } = r;
  const byClass = metrics.singleMetric();
  byClass.addDimension('class', s.class);
  byClass.addMetric('Incidents', MetricUnit.Count, 1);
  const byOutcome = metrics.singleMetric();
  byOutcome.addDimension('outcome', outcome.split(':')[0].split(';')[0]);
  byOutcome.addMetric('IncidentOutcomes', MetricUnit.Count, 1);
  for (const a of r.actions) {
    const m = metrics.singleMetric();
    m.addDimensions({ action: a.id, status: a.status.split(/[\s(:;]/)[0] || 'unknown' });
    m.addMetric('Actions', MetricUnit.Count, 1);
  }
  if (verificationFailed(outcome)) metrics.singleMetric().addMetric('VerificationFailures', MetricUnit.Count, 1);
  if (/\bverified\b/.test(outcome)) {
    // Its own EMF document too: only some summaries have one, and a flush of none is logged as a warning.
    metrics
      .singleMetric()
      .addMetric('TimeToVerifiedRepair', MetricUnit.Seconds, Math.max(0, (now - Date.parse(s.firstSeen)) / 1000));
  }
}

/**
 * The remedies as actions: what was prepared (dry run) and what was applied, with diff and evidence;
 * the first remedy before its follow-up.
 */
function remedyActions(s: SummarizeInput): ActionRecord[] {
  const follow = s.remedyFirst ? followUpOnly(s) : s;
  const current = follow.remedyApplied ?? follow.remedyPrepared;
  return [
    ...(s.remedyFirst
      ? [remedyAction(s.remedyFirst, s.remedyFirst.applied !== null, s.remedyFirst.plan?.approval)]
      : []),
    ...(current ? [remedyAction(current, current === follow.remedyApplied, s.plan?.remedy?.approval)] : []),
  ];
}

function remedyAction(r: ApplyRecord, applied: boolean, approval: ApprovalRecord | undefined): ActionRecord {
  const approvedBy =
    applied && approval?.approved
      ? ` (approved through the signed link${approval.decidedAt ? ` at ${approval.decidedAt}` : ''})`
      : '';
  return {
    id: r.remedy,
    status: `${r.status}${approvedBy}`,
    outputExcerpt: `${r.change}: ${r.reason}`.slice(0, 500),
    detail: r.diff,
    evidence: { before: r.before, after: r.after, applied: r.applied ?? null, verification: r.verification ?? null },
  };
}

/**
 * A node action that was sent counts against the hourly cap (a row keyed by when it was sent, not by
 * this call: "Record failure" summarizing the same run again overwrites the row instead of counting
 * the action twice) and starts the node's cooldown for the class.
 */
async function recordNodeAction(s: SummarizeInput, id: string, action: NodeActionRun, deps: SummarizeDeps) {
  const instanceId = s.node?.instanceId;
  if (!action.sent?.commandId || !instanceId) return;
  const { config } = deps;
  const now = deps.now();
  await deps.ddb.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...clusterActionKey(s.cluster, actionAt(action.sentAt, now), `${s.incidentId}#${id}`),
        action: id,
        instanceId,
        expiresAt: Math.floor(now / 1000) + 2 * 3_600,
      },
    }),
  );
  await deps.ddb.send(
    new PutCommand({
      TableName: config.tableName,
      Item: {
        ...nodeCooldownKey(instanceId, s.class),
        at: now,
        expiresAt: Math.floor(now / 1000) + config.limits.nodeCooldownMinutes * 60 + 60,
      },
    }),
  );
}

/** The command reached the node (sent and not undeliverable): what it reserved stays spent. */
function ranOnNode(a: NodeActionRun | undefined): boolean {
  return a?.sent?.commandId !== undefined && a.result?.status !== 'Undeliverable';
}

/** When the node action was sent (epoch ms), or `fallback` when the state does not say. */
function actionAt(sentAt: string | undefined, fallback: number): number {
  const t = sentAt ? Date.parse(sentAt) : Number.NaN;
  return Number.isFinite(t) ? t : fallback;
}
