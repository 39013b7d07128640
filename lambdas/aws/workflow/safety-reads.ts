import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { activeNodesPartition } from '../incident-table.js';

/** The kill switch as the parameter says now: anything but `off` is on; unreadable is on (fail closed). */
export async function readKillSwitch(
  ssm: SSMClient,
  name: string,
): Promise<{ readonly killSwitch: boolean; readonly readable: boolean }> {
  try {
    const p = await ssm.send(new GetParameterCommand({ Name: name }));
    return { killSwitch: p.Parameter?.Value?.trim().toLowerCase() !== 'off', readable: true };
  } catch {
    return { killSwitch: true, readable: false };
  }
}

/** Nodes of the cluster with an open incident of the class in the window: the breaker's numerator. */
export async function countAffectedNodes(
  ddb: DynamoDBDocumentClient,
  i: { tableName: string; cluster: string; class: string; since: number },
): Promise<number> {
  const active = await ddb.send(
    new QueryCommand({
      TableName: i.tableName,
      KeyConditionExpression: 'pk = :pk',
      FilterExpression: '#at >= :since',
      ExpressionAttributeNames: { '#at': 'at' },
      ExpressionAttributeValues: { ':pk': activeNodesPartition(i.cluster, i.class), ':since': i.since },
      Select: 'COUNT',
    }),
  );
  return active.Count ?? 0;
}
