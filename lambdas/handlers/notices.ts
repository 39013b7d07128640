import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod/mini';
import { logger, metrics, tracer, withPowertools } from '../aws/runtime/powertools.js';
import { type NoticeDeps, noticeEvents } from '../aws/voices/notices.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/**
 * What the notices pipe passes: a batch of incident-table stream records (NEW_IMAGE). Only the
 * envelope is checked here; each row is read by the domain (stored-notice.ts).
 */
export const noticeBatchSchema = z.array(
  z.looseObject({
    eventName: z.optional(z.string()),
    dynamodb: z.optional(z.looseObject({ NewImage: z.optional(z.record(z.string(), z.unknown())) })),
  }),
);

/** Enrichment of the notices pipe: stream records → notice events for the notices bus (chat card, pager bodies). */
export const createHandler = (deps: () => NoticeDeps) =>
  withPowertools(noticeBatchSchema, async (records) => {
    const events = await noticeEvents(records, deps());
    for (const e of events) {
      const m = metrics.singleMetric();
      m.addDimension('kind', e.notice.kind);
      m.addMetric('Notices', MetricUnit.Count, 1);
    }
    return events;
  });

const env = readEnvironment('notices');
const s3 = tracer.captureAWSv3Client(new S3Client({ maxAttempts: 6 }));

export const handler = createHandler(() => ({
  s3,
  evidenceBucket: env.EVIDENCE_BUCKET,
  now: Date.now,
  warn: (message, context) => logger.warn(message, context),
}));
