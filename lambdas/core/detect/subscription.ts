import { gunzipSync } from 'node:zlib';
import * as z from 'zod/mini';
import '../text/zod-english.js';

/**
 * Most bytes a subscription payload may inflate to. CloudWatch Logs delivers at most about 1 MB of
 * log events at a time; anything far bigger is a decompression bomb (the function has 512 MB).
 */
export const MAX_INFLATED_BYTES = 16 * 1024 * 1024;
/** Latest epoch milliseconds a Date can hold; beyond it toISOString throws. */
export const MAX_TIMESTAMP = 8.64e15;

const envelopeSchema = z.object({ awslogs: z.object({ data: z.string() }) });
/** The batch, leniently: each log event is checked on its own so one bad event costs only itself. */
const batchSchema = z.object({
  messageType: z.string(),
  logGroup: z.string().check(z.maxLength(512)),
  logStream: z.string().check(z.maxLength(512)),
  logEvents: z.array(z.unknown()).check(z.minLength(1)),
});
export const logEventSchema = z.object({
  id: z.optional(z.string()),
  // z.number() refuses Infinity and NaN itself.
  timestamp: z.number().check(z.minimum(0), z.maximum(MAX_TIMESTAMP)),
  message: z.string(),
});

export type SubscriptionBatch = z.output<typeof batchSchema>;

/** The subscription batch inside `awslogs.data` (base64 gzip), inflated with a hard size limit. */
export function readSubscription(event: unknown): { batch: SubscriptionBatch } | { error: string } {
  const envelope = envelopeSchema.safeParse(event);
  if (!envelope.success) return { error: 'no awslogs.data string' };
  let text: string;
  try {
    const bytes = gunzipSync(Buffer.from(envelope.data.awslogs.data, 'base64'), {
      maxOutputLength: MAX_INFLATED_BYTES,
    });
    text = bytes.toString('utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === 'ERR_BUFFER_TOO_LARGE'
      ? { error: `awslogs.data inflates beyond ${MAX_INFLATED_BYTES} bytes` }
      : { error: `awslogs.data is not gzip: ${(e as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `invalid JSON: ${(e as Error).message}` };
  }
  const b = batchSchema.safeParse(json);
  if (b.success) return { batch: b.data };
  const issue = b.error.issues[0];
  return { error: `${issue?.path.join('.') || 'batch'}: ${issue?.message ?? 'invalid'}` };
}

/** Why a log event of a batch cannot be read, or its fields. */
export function readLogEvent(raw: unknown): z.output<typeof logEventSchema> | { error: string } {
  const le = logEventSchema.safeParse(raw);
  if (le.success) return le.data;
  const issue = le.error.issues[0];
  return { error: `log event ${issue?.path.join('.') || ''}: ${issue?.message ?? 'invalid'}` };
}
