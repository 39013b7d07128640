import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tracer } from './powertools.js';

export { withPowertools } from '../powertools.js';
export { logger, metrics, tracer, workflowConfig } from './powertools.js';

let ddb: DynamoDBDocumentClient | undefined;
/** The incident table's document client, created on first use. */
export function documentClient(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({ maxAttempts: 6 })), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return ddb;
}
