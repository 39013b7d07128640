import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Reject } from '../core/ingest.js';
import { outboundFields } from '../core/outbound.js';

/** Keeps what pod-doctor could not read in the evidence bucket, one JSON Lines object per invocation. */
export class RejectStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async keep(rejects: readonly Reject[], requestId: string, now: number): Promise<string | undefined> {
    if (rejects.length === 0) return undefined;
    const d = new Date(now).toISOString();
    const key = `rejected/${d.slice(0, 10).replaceAll('-', '/')}/${d.slice(11, 19).replaceAll(':', '')}-${requestId}.jsonl`;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: `${rejects.map((r) => JSON.stringify(outboundFields(r))).join('\n')}\n`,
        ContentType: 'application/x-ndjson',
      }),
    );
    return key;
  }
}
