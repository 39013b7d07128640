import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { capSlotKey, capSlotsPartition, type TableKey } from '../../core/contract/incident-table.js';

/**
 * What the door holds for one change: a slot of the cluster's hourly cap and the cooldowns of what
 * it touches (the node for a class, the target: a role, a security group, a subnet, aws-node on a
 * node, the VPC CNI add-on or ConfigMap). Every mutating kind reserves them, with conditional writes,
 * so racing executions cannot exceed the cap or change one thing twice inside its cooldown.
 */
export interface Reservation {
  /** Who holds the slot: the execution and the request (a retried call takes no second slot). */
  readonly slotHolder: string;
  readonly slot: TableKey;
  /** Each cooldown and who holds it (the execution: its follow-ups may act within it). */
  readonly cooldowns: readonly { readonly key: TableKey; readonly holder: string }[];
}

/** Refused: every slot of the cluster's hourly cap is held. */
export class CapReachedError extends Error {
  override readonly name = 'CapReachedError';
}

/** Refused: another execution holds a cooldown of what this change touches. */
export class CooldownHeldError extends Error {
  override readonly name = 'CooldownHeldError';
}

/** A cooldown to claim: its key, who claims it, how long it lasts, and what it protects (for the refusal). */
export interface CooldownClaim {
  readonly key: TableKey;
  readonly holder: string;
  readonly minutes: number;
  readonly what: string;
}

export interface ReserveInput {
  readonly cluster: string;
  /** Slots of the cap (changes per cluster per hour). */
  readonly cap: number;
  readonly slotHolder: string;
  readonly cooldowns: readonly CooldownClaim[];
}

export interface TableDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
}

const HOUR_MS = 3_600_000;

/**
 * Reserves one slot of the cluster's hourly cap with a conditional write (free when never held, its
 * hour over, or this holder already has it), then claims each cooldown the same way; a refusal
 * gives back what was taken. DynamoDB decides between racing executions.
 * Throws {@link CapReachedError} / {@link CooldownHeldError}.
 */
export async function reserve(i: ReserveInput, deps: TableDeps & { now: number }): Promise<Reservation> {
  const slot = await reserveSlot(i.cluster, i.cap, i.slotHolder, deps);
  const held: { key: TableKey; holder: string }[] = [];
  for (const c of i.cooldowns) {
    try {
      await claimCooldown(c, deps);
      held.push({ key: c.key, holder: c.holder });
    } catch (e) {
      await releaseReservation({ slotHolder: i.slotHolder, slot, cooldowns: held }, deps);
      if (e instanceof ConditionalCheckFailedException)
        throw new CooldownHeldError(`cooldown: another execution acted on ${c.what} less than ${c.minutes} min ago`);
      throw e;
    }
  }
  return { slotHolder: i.slotHolder, slot, cooldowns: held };
}

async function claimCooldown(c: CooldownClaim, deps: TableDeps & { now: number }): Promise<void> {
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: { ...c.key, at: deps.now, holder: c.holder, expiresAt: Math.floor(deps.now / 1000) + c.minutes * 60 + 60 },
      ConditionExpression: 'attribute_not_exists(pk) OR #at < :since OR holder = :me',
      ExpressionAttributeNames: { '#at': 'at' },
      ExpressionAttributeValues: { ':since': deps.now - c.minutes * 60_000, ':me': c.holder },
    }),
  );
}

async function reserveSlot(
  cluster: string,
  cap: number,
  holder: string,
  deps: TableDeps & { now: number },
): Promise<TableKey> {
  const held = await deps.ddb.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': capSlotsPartition(cluster) },
    }),
  );
  const items = held.Items ?? [];
  const mine = items.find((x) => x.holder === holder && Number(x.until) > deps.now);
  if (mine) return { pk: String(mine.pk), sk: String(mine.sk) };
  const busy = new Set(items.filter((x) => Number(x.until) > deps.now).map((x) => String(x.sk)));
  for (let n = 0; n < cap; n++) {
    const key = capSlotKey(cluster, n);
    if (busy.has(key.sk)) continue;
    try {
      await deps.ddb.send(
        new PutCommand({
          TableName: deps.tableName,
          Item: { ...key, holder, until: deps.now + HOUR_MS, expiresAt: Math.floor((deps.now + HOUR_MS) / 1000) + 60 },
          ConditionExpression: 'attribute_not_exists(pk) OR #until <= :now OR holder = :me',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':now': deps.now, ':me': holder },
        }),
      );
      return key;
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
    }
  }
  throw new CapReachedError(
    `hourly cap: ${cap} node actions in this cluster in the last hour (max ${cap}), reserved before acting`,
  );
}

/**
 * Gives back what a change reserved when it never took effect (not sent, undeliverable, nothing
 * changed): its cap slot and its cooldowns. Only this holder's own reservation is released.
 */
export async function releaseReservation(r: Reservation, deps: TableDeps): Promise<void> {
  await releaseKey(r.slot, r.slotHolder, 'until', deps);
  for (const c of r.cooldowns) await releaseKey(c.key, c.holder, 'at', deps);
}

async function releaseKey(key: TableKey, holder: string, attribute: 'until' | 'at', deps: TableDeps): Promise<void> {
  try {
    await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key,
        UpdateExpression: 'SET #a = :zero REMOVE holder',
        ConditionExpression: 'holder = :me',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':zero': 0, ':me': holder },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
