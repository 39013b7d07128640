import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { RUN_PREFIX } from '../../lambdas/core/contract/incident-table.js';
import { outboundFields } from '../../lambdas/core/text/outbound.js';
import { runNoticeKind } from '../../lambdas/core/voices/notice.js';

/**
 * The incidents a deployment recorded, read as an operator's tools read them: the history rows of
 * the incident table (one per workflow run) and the summaries they link in the evidence bucket.
 * Read-only (Scan, GetObject); every string handed out is one line and redacted.
 */

export interface IncidentReaderDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  /** Summaries are read from this bucket only. */
  readonly evidenceBucket: string;
}

/** One workflow run of an incident, as listed. */
export interface IncidentRun {
  readonly incidentId: string;
  readonly class: string;
  readonly cluster: string;
  readonly outcome: string;
  /** What it asks of a human (needs-human, verified, closed, informational). */
  readonly kind: string;
  readonly closedAt: string;
  readonly executionArn: string;
  readonly summary: string | null;
}

/** Most rows a listing scans (pages of up to 1 MB each): a listing answers, it does not sweep a table. */
const MAX_SCANNED_PAGES = 20;
const MAX_SUMMARY_BYTES = 1024 * 1024;

export class IncidentNotFoundError extends Error {
  override readonly name = 'IncidentNotFoundError';
}

export class IncidentReader {
  constructor(private readonly deps: IncidentReaderDeps) {}

  private async scanRuns(filter: string, values: Record<string, unknown>, names?: Record<string, string>) {
    const rows: Record<string, unknown>[] = [];
    let start: ScanCommandInput['ExclusiveStartKey'];
    for (let page = 0; page < MAX_SCANNED_PAGES; page++) {
      const out = await this.deps.ddb.send(
        new ScanCommand({
          TableName: this.deps.tableName,
          FilterExpression: `begins_with(sk, :run)${filter}`,
          ExpressionAttributeValues: { ':run': RUN_PREFIX, ...values },
          ...(names ? { ExpressionAttributeNames: names } : {}),
          ExclusiveStartKey: start,
        }),
      );
      rows.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
      if (!start) break;
    }
    return rows;
  }

  /** The latest runs, newest first, optionally of one cluster and one class. */
  async list(q: { cluster?: string; class?: string; limit: number }): Promise<IncidentRun[]> {
    const parts: string[] = [];
    const values: Record<string, unknown> = {};
    if (q.cluster) {
      parts.push(' AND cluster = :cluster');
      values[':cluster'] = q.cluster;
    }
    if (q.class) {
      parts.push(' AND #class = :class');
      values[':class'] = q.class;
    }
    const rows = await this.scanRuns(parts.join(''), values, q.class ? { '#class': 'class' } : undefined);
    return rows
      .sort((a, b) => Number(b.closedAt) - Number(a.closedAt))
      .slice(0, q.limit)
      .map((r) => outboundFields(runOf(r)));
  }

  /** An incident: its runs, and the latest run's summary (evidence, checks, actions, next step). */
  async get(incidentId: string): Promise<{ runs: IncidentRun[]; summary: unknown }> {
    const rows = (await this.scanRuns(' AND incidentId = :id', { ':id': incidentId })).sort(
      (a, b) => Number(b.closedAt) - Number(a.closedAt),
    );
    if (rows.length === 0) throw new IncidentNotFoundError(`no incident ${incidentId} in ${this.deps.tableName}`);
    return { runs: rows.map((r) => outboundFields(runOf(r))), summary: outboundFields(await this.summary(rows[0])) };
  }

  private async summary(row: Record<string, unknown>): Promise<unknown> {
    const m = /^s3:\/\/([^/]+)\/(incidents\/.+)$/.exec(String(row.summaryJson ?? ''));
    if (!m || m[1] !== this.deps.evidenceBucket) return null;
    try {
      const out = await this.deps.s3.send(
        new GetObjectCommand({ Bucket: m[1], Key: m[2], Range: `bytes=0-${MAX_SUMMARY_BYTES - 1}` }),
      );
      return JSON.parse((await out.Body?.transformToString()) ?? 'null');
    } catch (e) {
      if (e instanceof NoSuchKey || e instanceof SyntaxError) return null;
      throw e;
    }
  }
}

function runOf(r: Record<string, unknown>): IncidentRun {
  const outcome = String(r.outcome ?? '');
  return {
    incidentId: String(r.incidentId ?? ''),
    class: String(r.class ?? ''),
    cluster: String(r.cluster ?? ''),
    outcome,
    kind: runNoticeKind(outcome, String(r.class ?? '')),
    closedAt: new Date(Number(r.closedAt ?? 0)).toISOString(),
    executionArn: String(r.executionArn ?? ''),
    summary: typeof r.summaryJson === 'string' ? r.summaryJson : null,
  };
}
