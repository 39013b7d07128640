import { type CloudTrailClient, LookupEventsCommand } from '@aws-sdk/client-cloudtrail';
import {
  type ChangeReader,
  changeReaderOf,
  changeRecord,
  fromCloudTrailRecord,
} from '../lambdas/core/cloudtrail/change-records.js';

/**
 * For `pod-doctor diagnose` only (a person at a terminal, no deployed change index): breaking
 * changes of one resource from CloudTrail LookupEvents, one page (50 events) per resource, calls one
 * after another (LookupEvents allows 2 requests per second per account and region). The deployed
 * workflow never calls LookupEvents: it reads the change index the ingest function fills.
 */
export function cloudTrailChangeReader(cloudtrail: CloudTrailClient, now: () => Date = () => new Date()): ChangeReader {
  let last = 0;
  return {
    async recent(resource, since, limit) {
      const wait = last + 500 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      last = Date.now();
      const page = await cloudtrail.send(
        new LookupEventsCommand({
          LookupAttributes: [{ AttributeKey: 'ResourceName', AttributeValue: resource }],
          StartTime: since,
          EndTime: now(),
          MaxResults: 50,
        }),
      );
      const records = (page.Events ?? []).flatMap((ev) => {
        const c = changeRecord(fromCloudTrailRecord(JSON.parse(ev.CloudTrailEvent ?? '{}') as Record<string, unknown>));
        return c ? [c] : [];
      });
      return changeReaderOf(records).recent(resource, since, limit);
    },
  };
}
