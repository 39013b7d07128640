import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ChangeIndex } from '../readers/account/change-index.js';
import { sdkClient } from '../runtime/sdk-client.js';

/** The change index the ecr and changes checks read (their CHANGE_TABLE_NAME). */
export function changeIndexIn(tableName: string): ChangeIndex {
  return new ChangeIndex(DynamoDBDocumentClient.from(sdkClient(DynamoDBClient)), tableName);
}
