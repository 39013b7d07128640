import { GetObjectCommand, NoSuchKey, type S3Client } from '@aws-sdk/client-s3';

/** Reading a run's summary JSON back from the evidence bucket (the notices pipe, the events write-back). */
export interface SummaryDeps {
  readonly s3: S3Client;
  /** The evidence bucket: the only bucket a summary is read from. */
  readonly evidenceBucket: string;
  /** Says a summary could not be read (the caller goes on with what it has). */
  readonly warn: (message: string, context: Record<string, unknown>) => void;
}

/** Summaries are a few KB; a larger object is read up to here and then refused as not JSON. */
const MAX_SUMMARY_BYTES = 1024 * 1024;

/** The summary JSON a history row links (`s3://<evidence bucket>/incidents/…/summary.json`), or undefined. */
export async function summaryOf(link: unknown, deps: SummaryDeps): Promise<unknown> {
  const m = typeof link === 'string' ? /^s3:\/\/([^/]+)\/(incidents\/.+)$/.exec(link) : null;
  if (!m || m[1] !== deps.evidenceBucket) {
    deps.warn('history row links no summary in the evidence bucket', { link });
    return undefined;
  }
  try {
    const out = await deps.s3.send(
      new GetObjectCommand({ Bucket: m[1], Key: m[2], Range: `bytes=0-${MAX_SUMMARY_BYTES - 1}` }),
    );
    return JSON.parse((await out.Body?.transformToString()) ?? '');
  } catch (e) {
    if (!(e instanceof NoSuchKey) && !(e instanceof SyntaxError)) throw e;
    deps.warn('summary unreadable: the notice names only what the history row says', { link, error: String(e) });
    return undefined;
  }
}
