import { PutObjectCommand, type PutObjectCommandInput, type S3Client } from '@aws-sdk/client-s3';
import type { Reject } from '../../core/incident/ingest.js';
import { outboundFields } from '../../core/text/outbound.js';

/** How many other keys a create-only write tries when its key exists. */
const MAX_OTHER_KEYS = 5;

/** S3 refused a conditional write: the key exists (`If-None-Match: *`, 412 PreconditionFailed). */
export function keyExists(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'PreconditionFailed' || err?.$metadata?.httpStatusCode === 412;
}

/**
 * Writes a new object, never over an existing one: `If-None-Match: *`, which the evidence bucket's
 * policy requires of every write. When the key exists (a step run again for the same execution), the
 * object goes under `otherKey(1)`, `otherKey(2)` … and the key written is returned; without `otherKey`
 * the existing object stands (undefined is returned).
 */
export async function putNewObject(
  s3: S3Client,
  input: Omit<PutObjectCommandInput, 'IfNoneMatch'> & { Key: string },
  otherKey?: (n: number) => string,
): Promise<string | undefined> {
  for (let n = 0; n <= (otherKey ? MAX_OTHER_KEYS : 0); n++) {
    const Key = n === 0 ? input.Key : (otherKey?.(n) ?? input.Key);
    try {
      await s3.send(new PutObjectCommand({ ...input, Key, IfNoneMatch: '*' }));
      return Key;
    } catch (e) {
      if (!keyExists(e)) throw e;
    }
  }
  if (otherKey) throw new Error(`evidence keys ${input.Key} and ${MAX_OTHER_KEYS} others all exist`);
  return undefined;
}

/**
 * Keeps records pod-doctor could not read (`rejected/`) or did not take (`dropped/`, over a limit) in
 * the evidence bucket, one JSON Lines object per invocation, each record outbound text.
 */
export class RejectStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async keep(
    rejects: readonly Reject[],
    requestId: string,
    now: number,
    prefix: 'rejected' | 'dropped' = 'rejected',
  ): Promise<string | undefined> {
    if (rejects.length === 0) return undefined;
    const d = new Date(now).toISOString();
    const key = `${prefix}/${d.slice(0, 10).replaceAll('-', '/')}/${d.slice(11, 19).replaceAll(':', '')}-${requestId}.jsonl`;
    // A retried invocation (same request id, same second) finds its own records already kept.
    await putNewObject(this.s3, {
      Bucket: this.bucket,
      Key: key,
      Body: `${rejects.map((r) => JSON.stringify(outboundFields(r))).join('\n')}\n`,
      ContentType: 'application/x-ndjson',
    });
    return key;
  }
}
