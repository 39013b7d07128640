import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import * as z from 'zod/mini';
import { ensureLogGroupsReady } from '../aws/ingest/log-group-prerequisites.js';
import { withPowertools } from '../aws/runtime/powertools.js';
import '../core/text/zod-english.js';

/** The custom resource event (CDK Provider framework) and the properties the construct sets. */
export const logGroupReadyEventSchema = z.looseObject({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  ResourceProperties: z.looseObject({
    LogGroupNames: z.array(z.string().check(z.minLength(1), z.maxLength(512))).check(z.minLength(1), z.maxLength(2000)),
    DestinationArn: z.string().check(z.startsWith('arn:')),
    RetentionInDays: z.coerce.number().check(z.int(), z.positive()),
  }),
});

/** One resource for the deployment's log groups (its id stays the same when the list changes). */
const PHYSICAL_ID = 'log-groups-ready';

/**
 * Custom resource before the subscription filters: on Create and Update every log group is made ready
 * (created if missing; the groups without a free slot refused, each named with its filters). Delete
 * changes nothing.
 */
export const createHandler = (logs: CloudWatchLogsClient) =>
  withPowertools(logGroupReadyEventSchema, async (event) => {
    const p = event.ResourceProperties;
    if (event.RequestType === 'Delete') return { PhysicalResourceId: PHYSICAL_ID };
    const r = await ensureLogGroupsReady(logs, {
      logGroupNames: p.LogGroupNames,
      destinationArn: p.DestinationArn,
      retentionInDays: p.RetentionInDays,
    });
    // Data stays small (the response is limited to 4 KB): how many groups pod-doctor created.
    return { PhysicalResourceId: PHYSICAL_ID, Data: { Created: String(r.created.length) } };
  });

export const handler = createHandler(new CloudWatchLogsClient({ maxAttempts: 6 }));
