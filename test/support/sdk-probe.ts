// Bundled by test/infra/bundled-sdk.test.ts: the SDK clients and commands pod-doctor's functions use,
// each sending one request and reading one answer (or error) from a local endpoint (AWS_ENDPOINT_URL).
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

const s3 = new S3Client({ forcePathStyle: true, maxAttempts: 1 });
const sfn = new SFNClient({ maxAttempts: 1 });
const eks = new EKSClient({ maxAttempts: 1 });
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 1 }));

/** The answer without its request-specific metadata, or the error's name, message and status. */
async function outcome(p: Promise<object>): Promise<unknown> {
  try {
    const { $metadata, ...rest } = (await p) as { $metadata: { httpStatusCode?: number } };
    return { status: $metadata.httpStatusCode, ...rest };
  } catch (e) {
    const err = e as Error & { $metadata?: { httpStatusCode?: number }; $fault?: string };
    return { error: err.name, message: err.message, status: err.$metadata?.httpStatusCode, fault: err.$fault };
  }
}

const put = (Bucket: string) =>
  s3.send(
    new PutObjectCommand({ Bucket, Key: 'rejects/2026/a b.json', Body: '{"x":1}', ContentType: 'application/json' }),
  );
const start = (name: string) =>
  sfn.send(
    new StartExecutionCommand({
      stateMachineArn: 'arn:aws:states:eu-west-1:111122223333:stateMachine:sm',
      name,
      input: '{}',
    }),
  );
const results = {
  s3: await outcome(put('evidence')),
  s3Missing: await outcome(put('missing')),
  sfn: await outcome(start('inc-1')),
  sfnExists: await outcome(start('exists')),
  eks: await outcome(eks.send(new DescribeClusterCommand({ name: 'prod' }))),
  eksMissing: await outcome(eks.send(new DescribeClusterCommand({ name: 'gone' }))),
  ddbPut: await outcome(ddb.send(new PutCommand({ TableName: 't', Item: { pk: 'a', n: 1, l: ['x'] } }))),
  ddbGet: await outcome(ddb.send(new GetCommand({ TableName: 't', Key: { pk: 'a' } }))),
};
process.stdout.write(JSON.stringify(results));
