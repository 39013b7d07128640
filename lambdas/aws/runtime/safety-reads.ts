import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { activeNodeKey, activeNodesPartition } from '../../core/contract/incident-table.js';

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

/**
 * Marks the resolved instance as hit by the class (for the incident window) and counts the nodes
 * hit: keyed by instance id, so a node named by DNS name in one incident and by id in another counts
 * once.
 */
export async function markAndCountAffected(
  ddb: DynamoDBDocumentClient,
  i: { tableName: string; cluster: string; class: string; instanceId: string; now: number; windowMs: number },
): Promise<number> {
  await ddb.send(
    new PutCommand({
      TableName: i.tableName,
      Item: {
        ...activeNodeKey(i.cluster, i.class, i.instanceId),
        at: i.now,
        expiresAt: Math.floor((i.now + i.windowMs) / 1000),
      },
    }),
  );
  return countAffectedNodes(ddb, {
    tableName: i.tableName,
    cluster: i.cluster,
    class: i.class,
    since: i.now - i.windowMs,
  });
}
