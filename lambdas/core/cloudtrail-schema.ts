import * as z from 'zod';
import { CLOUDTRAIL_DETAIL_TYPES, type CloudTrailEvent } from './cloudtrail.js';

const text = (max: number) => z.string().max(max);

/**
 * The fields of an EventBridge "AWS API Call via CloudTrail" event pod-doctor reads, checked before
 * use: a field of the wrong type or size makes the event a kept reject, never an exception.
 * Sizes follow CloudTrail's own (event names and error codes are short; messages are bounded).
 */
export const cloudTrailEventSchema = z.object({
  id: text(128).optional(),
  source: text(256),
  'detail-type': z.enum(CLOUDTRAIL_DETAIL_TYPES),
  account: text(32).optional(),
  region: text(64).optional(),
  time: text(64).optional(),
  detail: z.object({
    eventSource: text(128),
    eventName: text(128),
    eventTime: text(64).optional(),
    eventID: text(128).optional(),
    awsRegion: text(64).optional(),
    errorCode: text(256).optional(),
    errorMessage: text(4096).optional(),
    userAgent: text(1024).optional(),
    userIdentity: z
      .object({
        arn: text(2048).optional(),
        type: text(64).optional(),
        principalId: text(512).optional(),
        invokedBy: text(256).optional(),
      })
      .optional(),
    requestParameters: z.record(z.string(), z.unknown()).nullable().optional(),
    serviceEventDetails: z.record(z.string(), z.unknown()).nullable().optional(),
  }),
}) satisfies z.ZodType<CloudTrailEvent>;
