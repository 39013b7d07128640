import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { configLoader } from './config-store.js';
import { tracer } from './powertools.js';

export { logger, metrics, tracer, withPowertools } from './powertools.js';

let ddb: DynamoDBDocumentClient | undefined;
/** The incident table's document client, created on first use. */
export function documentClient(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({ maxAttempts: 6 })), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return ddb;
}

/** The deployment's configuration (config-store.ts): read from the table once per execution environment. */
export const workflowConfig = configLoader(documentClient);
