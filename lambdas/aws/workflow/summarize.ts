import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { incidentRunKey, lockKey } from '../../core/contract/incident-table.js';
import { isEvaluation } from '../../core/incident/reevaluation.js';
import { outboundFields } from '../../core/text/outbound.js';
import { verificationFailed } from '../../core/voices/notice.js';
import { type ActionRecord, renderSummary } from '../../core/voices/summary.js';
import { type DoorResult, executionStateSchema } from '../../core/workflow/execution-state.js';
import type { WorkflowConfig } from '../../core/workflow/workflow-config.js';
import { closeIncidentRun } from '../ingest/incident-runs.js';
import { putNewObject } from '../runtime/evidence-store.js';
import { drainAction, drainOf, withDrain } from './summarize-drain.js';
import { evictAction, evictOf, withEviction } from './summarize-evict.js';
import { approvalsOf, outcomeOf } from './summarize-outcome.js';
import {
  nodeActions,
  openRecommendationsOf,
  remedies,
  resultOf,
  runResultOf,
  type SummarizeInput,
} from './summarize-results.js';

export type { SummarizeInput };

/** What Summarize and Record failure read: the whole execution state, as its contract defines it. */
export const summarizeEventSchema = executionStateSchema;

export interface SummarizeDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly config: WorkflowConfig;
  readonly metrics: Metrics;
  readonly now: () => number;
  /** The Region the function runs in: the console links' Region when the run did not record one. */
  readonly region: string;
}

/**
 * Summarize and record: evidence JSON + Markdown in S3, a history row linking both, lock release.
 * What was done comes from the door's results (its own ledger holds every request, reservation and
 * history row: nothing to settle here). The state is made outbound text first (one line per field,
 * no secrets): everything stored, mailed or returned here derives from it.
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
  const summary = summaryOf(s, { outcome, nextStep, actions }, deps.region);
  const keys = await storeSummary(s, summary, deps);
  await recordHistory(s, { outcome, ...keys }, now, deps);
  await releaseLock(s, deps);
  // After the lock is free: a re-evaluation the incident's next lines start finds it unlocked.
  await closeRun(s, now, deps);
  emitMetrics(s, { outcome, actions }, now, deps.metrics);
  return {
    subject: summary.subject,
    message: summary.text,
    outcome,
    summaryJson: keys.jsonKey,
    summaryMarkdown: keys.markdownKey,
  };
}

/** What was done: the remedies, then the first node action (when a follow-up ran) and the plan's node action. */
function actionRecords(s: SummarizeInput, actionStatus: string | undefined): ActionRecord[] {
  const { first, current } = nodeActions(s);
  const planned = s.plan?.requests.followUp && first ? s.plan.requests.followUp : s.plan?.requests.act;
  return [
    ...remedyActions(s),
    ...(first ? [nodeAction(first, first.command?.status ?? 'not run')] : []),
    ...(planned
      ? [
          current
            ? nodeAction(current, actionStatus ?? current.command?.status ?? 'not run')
            : { id: planned.action.kind, status: actionStatus ?? 'not run' },
        ]
      : []),
  ];
}

function nodeAction(r: DoorResult, status: string): ActionRecord {
  return {
    id: r.kind,
    commandId: r.command?.commandId,
    status,
    outputExcerpt: r.command?.excerpt ? r.command.excerpt.slice(0, 300) : undefined,
  };
}

/** The rendered summary of the workflow state, its outcome and the actions taken. */
function summaryOf(
  s: SummarizeInput,
  r: { outcome: string; nextStep: string; actions: ActionRecord[] },
  region: string,
): ReturnType<typeof renderSummary> {
  return renderSummary({
    incident: s,
    node: s.node,
    findings: s.plan?.findings ?? [],
    plannedActions: s.plan?.actions ?? [],
    actions: r.actions,
    outcome: r.outcome,
    nextStep: r.nextStep,
    // What this run did and verified is not recommended again.
    recommendations: openRecommendationsOf(s),
    reasons: [
      ...(s.plan?.reasons ?? []),
      // How the repair was (or was not) verified: the pods that started, or what still fails.
      ...(s.verification ? [`verification: ${s.verification.reason}`] : []),
    ],
    executionArn: s.execution.arn,
    region: s.open?.region ?? region,
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
  const put = deps.ddb.send(
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
      // Append-only: a run's row is written once (a retried Summarize finds it there; the first stands).
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  await put.catch((e: unknown) => {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  });
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

/** The remedies as actions: what was prepared (dry run) or applied, with diff and evidence; the first remedy before its follow-up. */
function remedyActions(s: SummarizeInput): ActionRecord[] {
  const { first, current } = remedies(s);
  return [first, current].flatMap((r) => (r?.record ? [remedyAction(r)] : []));
}

function remedyAction(r: DoorResult): ActionRecord {
  const rec = r.record;
  const approval = r.approval;
  const applied = rec?.applied !== null && rec?.applied !== undefined;
  const approvedBy =
    applied && approval?.approved
      ? ` (approved through the signed link${approval.decidedAt ? ` at ${approval.decidedAt}` : ''})`
      : '';
  return {
    id: r.kind,
    status: `${rec?.status ?? r.outcome}${approvedBy}`,
    outputExcerpt: `${rec?.change ?? r.line}: ${rec?.reason ?? r.reason}`.slice(0, 500),
    detail: rec?.diff ?? [],
    evidence: {
      before: rec?.before ?? [],
      after: rec?.after ?? [],
      applied: rec?.applied ?? null,
      verification: rec?.verification ?? null,
    },
  };
}

export { resultOf };

/**
 * Records on the incident's open row that this evaluation ended and what it left, so the incident's
 * next lines are evaluated again unless it verified a repair. Runs started another way (an agent's
 * request) leave the row alone.
 */
async function closeRun(s: SummarizeInput, now: number, deps: SummarizeDeps): Promise<void> {
  const execution = String(s.execution.arn.split(':').pop());
  if (!isEvaluation(s.incidentId, execution)) return;
  await closeIncidentRun(deps.ddb, deps.config.tableName, {
    incidentKey: s.incidentKey,
    incidentId: s.incidentId,
    execution,
    result: runResultOf(s),
    now,
  });
}
