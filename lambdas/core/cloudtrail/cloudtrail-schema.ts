import * as z from 'zod/mini';
import { CLOUDTRAIL_DETAIL_TYPES, type CloudTrailEvent } from './cloudtrail.js';
import '../text/zod-english.js';

const text = (max: number) => z.string().check(z.maxLength(max));
const optionalText = (max: number) => z.optional(text(max));
const fields = () => z.optional(z.nullable(z.record(z.string(), z.unknown())));

/**
 * The fields of an EventBridge "AWS API Call via CloudTrail" event pod-doctor reads, checked before
 * use: a field of the wrong type or size makes the event a kept reject, never an exception.
 * Sizes follow CloudTrail's own (event names and error codes are short; messages are bounded).
 */
export const cloudTrailEventSchema = z.object({
  id: optionalText(128),
  source: text(256),
  'detail-type': z.enum(CLOUDTRAIL_DETAIL_TYPES),
  account: optionalText(32),
  region: optionalText(64),
  time: optionalText(64),
  detail: z.object({
    eventSource: text(128),
    eventName: text(128),
    eventTime: optionalText(64),
    eventID: optionalText(128),
    awsRegion: optionalText(64),
    errorCode: optionalText(256),
    errorMessage: optionalText(4096),
    userAgent: optionalText(1024),
    userIdentity: z.optional(
      z.object({
        arn: optionalText(2048),
        type: optionalText(64),
        principalId: optionalText(512),
        invokedBy: optionalText(256),
      }),
    ),
    requestParameters: fields(),
    serviceEventDetails: fields(),
  }),
}) satisfies z.ZodMiniType<CloudTrailEvent>;
