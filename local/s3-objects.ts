import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * An S3 bucket's objects as S3 answers PutObject: a conditional write (`If-None-Match: *`) on a key that
 * exists fails with 412 PreconditionFailed and changes nothing; any other write replaces the object
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html); GetObject reads an
 * object back (NoSuchKey when absent). Call before guard().
 */
export function s3Objects(s3: S3Client): Map<string, string> {
  const objects = new Map<string, string>();
  mockClient(s3)
    .on(PutObjectCommand)
    .callsFake((i) => {
      const key = String(i.Key);
      if (i.IfNoneMatch === '*' && objects.has(key))
        throw new S3ServiceException({
          name: 'PreconditionFailed',
          $fault: 'client',
          $metadata: { httpStatusCode: 412 },
          message: 'At least one of the pre-conditions you specified did not hold',
        });
      objects.set(key, String(i.Body));
      return { ETag: `"${objects.size}"` };
    })
    .on(GetObjectCommand)
    .callsFake((i) => {
      const body = objects.get(String(i.Key));
      if (body === undefined) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
      return { Body: sdkStreamMixin(Readable.from([Buffer.from(body)])) };
    });
  return objects;
}
