import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { openIncidentKey } from '../../core/contract/incident-table.js';
import type { RunResult } from '../../core/incident/reevaluation.js';

/**
 * Records on the incident's open row that one of its executions ended, and what it left: new lines
 * for the incident are then evaluated again unless the run verified a repair (lambdas/core/incident/reevaluation.ts).
 * Only the incident the run belongs to: a row another window reopened under the same key is left alone.
 */
export async function closeIncidentRun(
  ddb: DynamoDBDocumentClient,
  tableName: string,
  run: {
    readonly incidentKey: string;
    readonly incidentId: string;
    /** The execution's name: summarizing one run twice ("Record failure" after "Summarize") closes it once. */
    readonly execution: string;
    readonly result: RunResult;
    readonly now: number;
  },
): Promise<void> {
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName,
        Key: openIncidentKey(run.incidentKey),
        UpdateExpression: 'ADD closedExecutions :exec SET lastResult = :r, lastClosedAt = :now',
        ConditionExpression: 'incidentId = :id',
        ExpressionAttributeValues: {
          ':exec': new Set([run.execution]),
          ':r': run.result,
          ':now': run.now,
          ':id': run.incidentId,
        },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
