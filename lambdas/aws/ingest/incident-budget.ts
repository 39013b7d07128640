import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type BudgetKind, type BudgetScope, budgetKey, limitNoticeKey } from '../../core/contract/incident-table.js';
import type { IngestLimits } from '../../core/incident/ingest-limits.js';
import type { Rank } from '../../core/incident/provenance.js';

/** Budget rows live past their hour long enough to be read back, then expire. */
const BUDGET_TTL_SECONDS = 3 * 3_600;

/**
 * Hourly budgets of incidents, executions and tenant signals, across every invocation that opens
 * incidents (ingest, the Kubernetes events reader and sweep, the fleet intake): one counter per (cluster,
 * rank, account, namespace, kind, clock hour), taken with a conditional ADD (never past its limit however
 * many invocations race) and given back when what it was taken for did not happen. Each rank spends its
 * own counters: a tenant-rank signal takes its namespace's and the tenant rank's cluster counter, never
 * the node or AWS rank's.
 */
export class IncidentBudget {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly limits: IngestLimits,
  ) {}

  private max(scope: BudgetScope, kind: BudgetKind): number {
    const l = this.limits;
    if (scope.rank === 'tenant') {
      if (kind === 'signals') return l.maxTenantSignalsPerNamespacePerHour;
      return scope.namespace === undefined
        ? l.maxTenantIncidentsPerClusterPerHour
        : l.maxTenantIncidentsPerNamespacePerHour;
    }
    return kind === 'executions' ? l.maxExecutionsPerClusterPerHour : l.maxIncidentsPerClusterPerHour;
  }

  /** The counters one take spends: a tenant namespace's, then the tenant rank's of the cluster. */
  private counters(scope: string | BudgetScope, kind: BudgetKind): BudgetScope[] {
    const s = typeof scope === 'string' ? { cluster: scope } : scope;
    if (s.rank !== 'tenant' || s.namespace === undefined || kind === 'signals') return [s];
    const { namespace: _ns, ...cluster } = s;
    return [s, cluster];
  }

  /** Takes one of the scope's `kind` this hour; false when the hour's budget (any counter of it) is spent. */
  async take(scope: string | BudgetScope, kind: BudgetKind, now: number): Promise<boolean> {
    const taken: BudgetScope[] = [];
    for (const s of this.counters(scope, kind)) {
      if (!(await this.takeOne(s, kind, now))) {
        for (const t of taken) await this.giveBackOne(t, kind, now);
        return false;
      }
      taken.push(s);
    }
    return true;
  }

  private async takeOne(scope: BudgetScope, kind: BudgetKind, now: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: budgetKey(scope, kind, now),
          UpdateExpression: 'ADD #n :one SET expiresAt = if_not_exists(expiresAt, :ttl)',
          ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
          ExpressionAttributeNames: { '#n': 'n' },
          ExpressionAttributeValues: { ':one': 1, ':max': this.max(scope, kind), ':ttl': ttl(now) },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /** Gives back one taken `kind` (it was not used: the incident was joined, the start lost a race). */
  async giveBack(scope: string | BudgetScope, kind: BudgetKind, now: number): Promise<void> {
    for (const s of this.counters(scope, kind)) await this.giveBackOne(s, kind, now);
  }

  private async giveBackOne(scope: BudgetScope, kind: BudgetKind, now: number): Promise<void> {
    try {
      await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: budgetKey(scope, kind, now),
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
   * Counts `dropped` candidates against the cluster's hour of one rank, and claims that hour's one
   * notice: true for the first caller of the hour (it sends the notice), false afterwards (counted only).
   */
  async noteDropped(cluster: string, dropped: number, now: number, rank: Rank = 'node'): Promise<boolean> {
    const Key = limitNoticeKey(cluster, now, rank);
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
