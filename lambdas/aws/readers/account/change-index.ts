import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  CHANGE_RETENTION_DAYS,
  type ChangeReader,
  type ChangeRecord,
} from '../../../core/cloudtrail/change-records.js';
import { changeKey, changePartition, changesSince, TTL_ATTRIBUTE } from '../../../core/contract/incident-table.js';

/** DynamoDB attribute values are limited to 400 KB an item; resource names to the 2,048-byte key. */
const MAX_KEY_CHARS = 1024;

/**
 * Breaking changes indexed in the incident table as EventBridge delivers them: one item per touched
 * resource, `pk = CHANGE#<resource>`, `sk = <ISO time>#<event id>`, expiring after
 * {@link CHANGE_RETENTION_DAYS} through the table's TTL. Reads are one bounded Query per resource.
 */
export class ChangeIndex implements ChangeReader {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Writes one item per resource; a redelivered event overwrites its own items (same keys). */
  async put(r: ChangeRecord): Promise<void> {
    const expiresAt = Math.floor(r.at / 1000) + CHANGE_RETENTION_DAYS * 86_400;
    for (const resource of r.resources) {
      if (resource.length > MAX_KEY_CHARS) continue;
      await this.ddb.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...changeKey(resource, r.at, r.eventId), ...r, [TTL_ATTRIBUTE]: expiresAt },
        }),
      );
    }
  }

  /** Changes of `resource` since `since`, newest first, at most `limit` (one Query page). */
  async recent(resource: string, since: Date, limit: number): Promise<ChangeRecord[]> {
    const range = changesSince(since);
    const r = await this.ddb.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': changePartition(resource),
          ':from': range.from,
          ':to': range.to,
        },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (r.Items ?? [])
      .map((i) => ({
        eventId: String(i.eventId),
        eventName: String(i.eventName),
        at: Number(i.at),
        actor: String(i.actor),
        resources: (i.resources as string[]) ?? [resource],
        summary: String(i.summary),
        ...(Array.isArray(i.images) ? { images: i.images as string[] } : {}),
        ...(typeof i.roleName === 'string' ? { roleName: i.roleName } : {}),
        ...(typeof i.policyArn === 'string' ? { policyArn: i.policyArn } : {}),
      }))
      .sort((a, b) => b.at - a.at)
      .slice(0, limit);
  }
}
