import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fromCloudTrailRecord } from '../../lambdas/core/cloudtrail/change-records.js';
import type { CloudTrailEvent } from '../../lambdas/core/cloudtrail/cloudtrail.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

export interface CorpusLine {
  readonly class: string;
  readonly source: string;
  readonly line: string;
}

export function corpus(): CorpusLine[] {
  return readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CorpusLine);
}

export function fixture<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', name), 'utf8')) as T;
}

/** A CloudWatch Logs subscription event exactly as Lambda receives it: base64 of gzip of the JSON batch. */
export function subscriptionEvent(
  messages: readonly string[],
  opts: { logGroup?: string; logStream?: string; messageType?: string; start?: number } = {},
) {
  const start = opts.start ?? Date.parse('2026-11-29T10:00:00Z');
  const batch = {
    messageType: opts.messageType ?? 'DATA_MESSAGE',
    owner: '111122223333',
    logGroup: opts.logGroup ?? '/aws/containerinsights/prod-eu/dataplane',
    logStream: opts.logStream ?? 'kubelet-ip-10-0-12-34.eu-west-1.compute.internal',
    subscriptionFilters: ['PodDoctorDetectionprodeuSubscription0'],
    logEvents: messages.map((message, i) => ({
      id: String(37_000_000_000_000_000_000_000_000_000_000_000_000_000_000n + BigInt(i)),
      timestamp: start + i * 1000,
      message,
    })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(batch))).toString('base64') } };
}

/**
 * A CloudTrail record fixture (`test/fixtures/cloudtrail/*.json`: `{ source, note, record }`, the
 * record as CloudTrail stores it) in the envelope EventBridge delivers: the record becomes `detail`.
 */
export function cloudTrailFixture(name: string): CloudTrailEvent & Record<string, unknown> {
  const { record } = fixture<{ record: Record<string, unknown> }>(`cloudtrail/${name}.json`);
  return {
    version: '0',
    id: `eb-${String(record.eventID)}`,
    ...fromCloudTrailRecord(record),
    account: String(record.recipientAccountId),
    time: String(record.eventTime),
    region: String(record.awsRegion),
    resources: [],
  };
}
