import { unmarshallDynamoDB } from '@aws-lambda-powertools/commons/utils/unmarshallDynamoDB';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { approvalKey, RUN_PREFIX } from '../../core/contract/incident-table.js';
import { outboundFields } from '../../core/text/outbound.js';
import { type CustomNotification, chatCard } from '../../core/voices/chat-card.js';
import type { IncidentNotice } from '../../core/voices/notice.js';
import { type PagingDetail, pagingDetail } from '../../core/voices/paging.js';
import { approvalNotice, runNotice } from '../../core/voices/stored-notice.js';
import { summaryOf } from '../runtime/stored-summary.js';

/**
 * The enrichment of the notices pipe: incident-table stream records (a run's history row, a pending
 * approval's row, both as first written) → one event per notice on the notices bus, carrying the
 * chat card and, when it pages, each pager's body. Rules on the bus deliver them (lib/constructs/channels).
 */

/** What the notices bus carries per notice (the `detail` of a `pod-doctor incident notice` event). */
export interface NoticeEvent {
  readonly notice: Pick<IncidentNotice, 'kind' | 'incidentId' | 'class' | 'cluster' | 'where' | 'at'>;
  readonly chat: CustomNotification;
  /** Absent: the notice pages nobody (informational). */
  readonly paging?: PagingDetail;
}

export interface NoticeDeps {
  readonly s3: S3Client;
  /** The evidence bucket: the only bucket a summary is read from. */
  readonly evidenceBucket: string;
  readonly now: () => number;
  /** Says a summary could not be read (the notice goes out with the row's own fields). */
  readonly warn: (message: string, context: Record<string, unknown>) => void;
}

/** A stream record as the pipe passes it (DynamoDB Streams record, `NEW_IMAGE` view). */
export interface StreamRecord {
  readonly eventName?: string;
  readonly dynamodb?: { readonly NewImage?: Record<string, unknown> };
}

const APPROVAL_PREFIX = approvalKey('').pk;

/** The notice of one stream record, or undefined for a record that is not a first write of a run or approval. */
async function noticeOf(record: StreamRecord, deps: NoticeDeps): Promise<IncidentNotice | undefined> {
  const image = record.dynamodb?.NewImage;
  if (record.eventName !== 'INSERT' || !image) return undefined;
  const row = unmarshallDynamoDB(image as Record<string, AttributeValue>) as Record<string, unknown>;
  const at = new Date(deps.now());
  if (String(row.pk).startsWith(APPROVAL_PREFIX)) return approvalNotice(row, at);
  if (String(row.sk).startsWith(RUN_PREFIX)) return runNotice(row, await summaryOf(row.summaryJson, deps), at);
  return undefined;
}

/**
 * The notice events of a batch of stream records, in order. Every string of a notice is one line
 * and redacted before any channel formats it; a record that cannot make a notice throws (the pipe
 * retries it, then keeps it in its dead-letter queue).
 */
export async function noticeEvents(records: readonly StreamRecord[], deps: NoticeDeps): Promise<NoticeEvent[]> {
  const out: NoticeEvent[] = [];
  for (const record of records) {
    const raw = await noticeOf(record, deps);
    if (!raw) continue;
    const notice = outboundFields(raw);
    const paging = pagingDetail(notice);
    out.push({
      notice: {
        kind: notice.kind,
        incidentId: notice.incidentId,
        class: notice.class,
        cluster: notice.cluster,
        where: notice.where,
        at: notice.at,
      },
      chat: chatCard(notice),
      ...(paging ? { paging } : {}),
    });
  }
  return out;
}
