import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import * as z from 'zod/mini';
import { ensureLogGroupReady } from '../aws/log-group-prerequisites.js';
import { withPowertools } from '../aws/powertools.js';
import '../core/zod-english.js';

/** The custom resource event (CDK Provider framework) and the properties the construct sets. */
export const logGroupReadyEventSchema = z.looseObject({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  ResourceProperties: z.looseObject({
    LogGroupName: z.string().check(z.minLength(1), z.maxLength(512)),
    DestinationArn: z.string().check(z.startsWith('arn:')),
    RetentionInDays: z.coerce.number().check(z.int(), z.positive()),
  }),
});

/**
 * Custom resource before each subscription filter: on Create and Update the log group is made ready
 * (created if missing; refused with its filters named if no slot is left). Delete changes nothing.
 */
export const createHandler = (logs: CloudWatchLogsClient) =>
  withPowertools(logGroupReadyEventSchema, async (event) => {
    const p = event.ResourceProperties;
    const physicalResourceId = `log-group-ready:${p.LogGroupName}`;
    if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
    const r = await ensureLogGroupReady(logs, {
      logGroupName: p.LogGroupName,
      destinationArn: p.DestinationArn,
      retentionInDays: p.RetentionInDays,
    });
    return { PhysicalResourceId: physicalResourceId, Data: { Created: String(r.created) } };
  });

export const handler = createHandler(new CloudWatchLogsClient({ maxAttempts: 6 }));
