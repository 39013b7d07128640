import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import * as z from 'zod';
import { ensureLogGroupReady } from '../aws/log-group-prerequisites.js';

const logs = new CloudWatchLogsClient({ maxAttempts: 6 });
const properties = z.object({
  LogGroupName: z.string().min(1).max(512),
  DestinationArn: z.string().startsWith('arn:'),
  RetentionInDays: z.coerce.number().int().positive(),
});

/**
 * Custom resource (CDK Provider framework) before each subscription filter: on Create and Update the
 * log group is made ready (created if missing; refused with its filters named if no slot is left).
 * Delete changes nothing.
 */
export const handler = async (event: CloudFormationCustomResourceEvent) => {
  const p = properties.parse(event.ResourceProperties);
  const physicalResourceId = `log-group-ready:${p.LogGroupName}`;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
  const r = await ensureLogGroupReady(logs, {
    logGroupName: p.LogGroupName,
    destinationArn: p.DestinationArn,
    retentionInDays: p.RetentionInDays,
  });
  return { PhysicalResourceId: physicalResourceId, Data: { Created: String(r.created) } };
};
