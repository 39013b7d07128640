import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { budgetKey, limitNoticeKey } from '../../core/contract/incident-table.js';
import type { IngestLimits } from '../../core/incident/ingest-limits.js';

/** Budget rows live past their hour long enough to be read back, then expire. */
const BUDGET_TTL_SECONDS = 3 * 3_600;

/**
 * A cluster's hourly budgets of incidents and executions, across every invocation that opens
 * incidents (ingest, the Kubernetes sweep): one counter per (cluster, kind, clock hour), taken with a
 * conditional ADD (never past its limit however many invocations race) and given back when what it
 * was taken for did not happen.
 */
export class IncidentBudget {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly limits: IngestLimits,
  ) {}

  private max(kind: 'incidents' | 'executions'): number {
    return kind === 'incidents'
      ? this.limits.maxIncidentsPerClusterPerHour
      : this.limits.maxExecutionsPerClusterPerHour;
  }

  /** Takes one of the cluster's `kind` this hour; false when the hour's budget is spent. */
  async take(cluster: string, kind: 'incidents' | 'executions', now: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: budgetKey(cluster, kind, now),
          UpdateExpression: 'ADD #n :one SET expiresAt = if_not_exists(expiresAt, :ttl)',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1, ':max': this.max(kind), ':ttl': ttl(now) },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /** Gives back one taken `kind` (it was not used: the incident was joined, the start lost a race). */
  async giveBack(cluster: string, kind: 'incidents' | 'executions', now: number): Promise<void> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: budgetKey(cluster, kind, now),
          UpdateExpression: 'ADD #n :minus',
          ConditionExpression: '#n > :zero',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
        }),
      );
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
  }

  /**
   * Counts `dropped` candidates against the cluster's hour, and claims the hour's one notice: true for
   * the first caller of the hour (it sends the notice), false afterwards (counted only).
   */
  async noteDropped(cluster: string, dropped: number, now: number): Promise<boolean> {
    const Key = limitNoticeKey(cluster, now);
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...Key, dropped, firstAt: now, expiresAt: ttl(now) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key,
        UpdateExpression: 'ADD dropped :n',
        ExpressionAttributeValues: { ':n': dropped },
      }),
    );
    return false;
  }
}

function ttl(now: number): number {
  return Math.floor(now / 1000) + BUDGET_TTL_SECONDS;
}
