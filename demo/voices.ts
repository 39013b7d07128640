import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { type NoticeEvent, noticeEvents, type StreamRecord } from '../lambdas/aws/voices/notices.js';
import { RUN_PREFIX } from '../lambdas/core/contract/incident-table.js';

/** What a run left: the incident table's items and the evidence objects (by key). */
export interface RunRecords {
  readonly rows: readonly Record<string, unknown>[];
  readonly evidence: ReadonlyMap<string, string>;
  readonly evidenceBucket: string;
}

/** An S3 client that answers GetObject from a run's evidence objects (what the run's functions wrote). */
export function evidenceS3(evidence: ReadonlyMap<string, string>, bucket: string): S3Client {
  const s3 = new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  mockClient(s3)
    .on(GetObjectCommand)
    .callsFake((i) => {
      const body = i.Bucket === bucket ? evidence.get(String(i.Key)) : undefined;
      if (body === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
      return { Body: sdkStreamMixin(Readable.from([Buffer.from(body)])) };
    });
  return s3;
}

/**
 * The notices pod-doctor would send for a run — the chat card and the pagers' bodies — made by the
 * notices pipe's own code from the rows the run wrote: each pending approval's row, then the run's
 * history row, as the table stream would hand them over (first writes, NEW_IMAGE), the summary read
 * from the run's evidence.
 */
export async function runNotices(run: RunRecords, now: number): Promise<NoticeEvent[]> {
  const approvals = run.rows
    .filter((r) => String(r.pk).startsWith('APPROVAL#'))
    .sort((a, b) => Number(a.exp) - Number(b.exp));
  const runs = run.rows.filter((r) => String(r.sk).startsWith(RUN_PREFIX));
  const records: StreamRecord[] = [...approvals, ...runs].map((item) => ({
    eventName: 'INSERT',
    dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) },
  }));
  const s3 = evidenceS3(run.evidence, run.evidenceBucket);
  return noticeEvents(records, { s3, evidenceBucket: run.evidenceBucket, now: () => now, warn: () => undefined });
}

/** The notices as the demo prints them under each e-mail: the chat card, then what each pager receives. */
export function renderNotices(notices: readonly NoticeEvent[]): string {
  return notices
    .map((n) => {
      const card = n.chat.content;
      const page = n.paging
        ? [
            `PagerDuty  ${n.paging.pagerduty.event_action} ${n.paging.dedupKey}${n.paging.pagerduty.payload ? ` (${n.paging.pagerduty.payload.severity}): ${n.paging.pagerduty.payload.summary}` : ''}`,
            `Opsgenie   ${n.paging.action === 'trigger' ? `create alert ${n.paging.opsgenie.create.alias} (${n.paging.opsgenie.create.priority})` : `close alert ${n.paging.dedupKey}`}`,
          ]
        : ['(no page: informational)'];
      return [
        `CHAT CARD [${n.notice.kind}] thread ${n.chat.metadata.threadId}`,
        `  ${card.title}`,
        ...card.description.split('\n').map((l) => `  | ${l}`),
        ...card.nextSteps.map((s) => `  → ${s}`),
        ...page.map((l) => `PAGE ${l}`),
      ].join('\n');
    })
    .join('\n\n');
}

/** One Kubernetes event pod-doctor wrote, as `kubectl events` shows it (read back from the local API server). */
export interface ClusterEventView {
  readonly regarding: string;
  readonly type: string;
  readonly reason: string;
  readonly action: string;
  readonly note: string;
  readonly reportingController: string;
  /** How often it was observed (a series' count; 1 without one). */
  readonly count: number;
}

/** The events.k8s.io events a run wrote, as the scenario's local API server holds them (none without one). */
export function clusterEventsOf(
  server: { events: { all(): Record<string, unknown>[] } } | undefined,
): ClusterEventView[] {
  return (server?.events.all() ?? []).map((e) => {
    const r = (e.regarding ?? {}) as { kind?: string; namespace?: string; name?: string };
    return {
      regarding: `${r.kind ?? '?'} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? '?'}`,
      type: String(e.type ?? ''),
      reason: String(e.reason ?? ''),
      action: String(e.action ?? ''),
      note: String(e.note ?? ''),
      reportingController: String(e.reportingController ?? ''),
      count: Number((e.series as { count?: number } | undefined)?.count ?? 1),
    };
  });
}

/** The events as the demo prints them (the columns of `kubectl events`). */
export function renderClusterEvents(events: readonly ClusterEventView[]): string {
  if (events.length === 0) return 'KUBERNETES EVENTS: none (this scenario has no cluster API: pod-doctor writes none)';
  return [
    'KUBERNETES EVENTS (events.k8s.io/v1, read back from the API server)',
    ...events.map((e) => `  ${e.type.padEnd(7)} ${e.reason.padEnd(18)} ${e.regarding}  ${e.note}`),
  ].join('\n');
}
