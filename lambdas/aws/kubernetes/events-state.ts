import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventSeenKey, eventsStateKey } from '../../core/contract/incident-table.js';

/** What the events reader knows of a cluster between invocations. */
export interface EventsCursor {
  /** Read up to here; absent: list first (a fresh start, or after a 410). */
  readonly resourceVersion?: string;
  /** When events were last read successfully (epoch ms): the signal self-check reads it. */
  readonly lastReadAt?: number;
}

/** What one invocation leaves behind for a cluster. */
export interface EventsProgress {
  readonly resourceVersion?: string;
  /** Whether the cluster's events could be read this time. */
  readonly readable: boolean;
  /** Why not (one line), when not. */
  readonly error?: string;
  readonly counts: { readonly [counter: string]: number };
}

/** How long a seen-event item outlives its window (events themselves live an hour: --event-ttl). */
const SEEN_EXTRA_SECONDS = 3600;

/**
 * The events reader's state in the incident table: per cluster one item (the resourceVersion read
 * up to, the lease that keeps two invocations off one cluster, the last read and counters) and per
 * counted event one item (its uid), so a series, its updates and a re-list count once per window.
 */
export class EventsStateStore {
  constructor(
    private readonly ddb: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Takes the cluster's lease until `until` (epoch ms) unless another holder has it: undefined when
   * it does (that invocation reads the cluster), else the cursor to start from.
   */
  async acquire(cluster: string, holder: string, now: number, until: number): Promise<EventsCursor | undefined> {
    try {
      const r = await this.ddb.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: eventsStateKey(cluster),
          UpdateExpression: 'SET leaseHolder = :h, leaseUntil = :until',
          ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseHolder = :h',
          ExpressionAttributeValues: { ':h': holder, ':until': until, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const a = r.Attributes ?? {};
      return {
        ...(typeof a.resourceVersion === 'string' ? { resourceVersion: a.resourceVersion } : {}),
        ...(typeof a.lastReadAt === 'number' ? { lastReadAt: a.lastReadAt } : {}),
      };
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return undefined;
      throw e;
    }
  }

  /** Saves the cursor while holding the lease (`release`: and gives the lease back). */
  async save(cluster: string, holder: string, now: number, p: EventsProgress, release = false): Promise<void> {
    const sets = ['lastAttemptAt = :now', p.readable ? 'lastReadAt = :now' : 'lastError = :err'];
    if (p.resourceVersion) sets.push('resourceVersion = :rv');
    if (release) sets.push('leaseUntil = :zero');
    const counts = Object.entries(p.counts).filter(([, n]) => n > 0);
    const add = counts.map((_, i) => `#c${i} :c${i}`);
    await this.ddb.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: eventsStateKey(cluster),
        UpdateExpression: `SET ${sets.join(', ')}${p.resourceVersion ? '' : ' REMOVE resourceVersion'}${add.length ? ` ADD ${add.join(', ')}` : ''}`,
        ConditionExpression: 'leaseHolder = :h',
        ExpressionAttributeValues: {
          ':h': holder,
          ':now': now,
          ...(p.readable ? {} : { ':err': (p.error ?? 'unreadable').slice(0, 1000) }),
          ...(p.resourceVersion ? { ':rv': p.resourceVersion } : {}),
          ...(release ? { ':zero': 0 } : {}),
          ...Object.fromEntries(counts.map(([, n], i) => [`:c${i}`, n])),
        },
        ...(add.length ? { ExpressionAttributeNames: Object.fromEntries(counts.map(([k], i) => [`#c${i}`, k])) } : {}),
      }),
    );
  }

  /**
   * Claims one event for counting: true when it was not counted in the last `windowMs` (a series'
   * updates and a re-list of the same event then count nothing).
   */
  async claim(cluster: string, uid: string, now: number, windowMs: number): Promise<boolean> {
    try {
      await this.ddb.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...eventSeenKey(cluster, uid),
            countedAt: now,
            expiresAt: Math.floor((now + windowMs) / 1000) + SEEN_EXTRA_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR countedAt < :windowStart',
          ExpressionAttributeValues: { ':windowStart': now - windowMs },
        }),
      );
      return true;
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return false;
      throw e;
    }
  }

  /** Gives a claim back (the incident it was counted in could not be recorded: count it next time). */
  async unclaim(cluster: string, uid: string): Promise<void> {
    await this.ddb.send(new DeleteCommand({ TableName: this.tableName, Key: eventSeenKey(cluster, uid) }));
  }
}
