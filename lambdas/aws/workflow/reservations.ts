import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { capSlotKey, capSlotsPartition, nodeCooldownKey, type TableKey } from '../incident-table.js';

/** What the gate holds for one node action: a slot of the hourly cap and the node's cooldown. */
export interface Reservation {
  /** Who holds the slot: the execution and the action (a follow-up holds a slot of its own). */
  readonly slotHolder: string;
  readonly slot: TableKey;
  /** Who holds the cooldown: the execution (its follow-up acts on the same node within it). */
  readonly cooldownHolder: string;
  readonly cooldown: TableKey;
}

/** Refused: every slot of the cluster's hourly cap is held. */
export class CapReachedError extends Error {
  override readonly name = 'CapReachedError';
}

/** Refused: another execution claimed this node's cooldown for the class. */
export class CooldownHeldError extends Error {
  override readonly name = 'CooldownHeldError';
}

export interface ReserveInput {
  readonly cluster: string;
  readonly instanceId: string;
  readonly class: string;
  /** The execution (ARN) acting. */
  readonly execution: string;
  /** The node action (a follow-up reserves its own slot). */
  readonly action: string;
  /** Slots of the cap (node actions per cluster per hour). */
  readonly cap: number;
  readonly cooldownMinutes: number;
}

const HOUR_MS = 3_600_000;

/**
 * Reserves one slot of the cluster's hourly cap with a conditional write (a slot is free when it
 * never was held, its hour is over, or this holder already has it: a retried call takes no second
 * slot), then claims the node's cooldown the same way. Racing executions cannot both win a slot or
 * the cooldown: DynamoDB decides. Throws {@link CapReachedError} / {@link CooldownHeldError}.
 */
export async function reserveAction(
  i: ReserveInput,
  deps: { ddb: DynamoDBDocumentClient; tableName: string; now: number },
): Promise<Reservation> {
  const slotHolder = `${i.execution}#${i.action}`;
  const slot = await reserveSlot(i.cluster, i.cap, slotHolder, deps);
  const cooldown = nodeCooldownKey(i.instanceId, i.class);
  try {
    await deps.ddb.send(
      new PutCommand({
        TableName: deps.tableName,
        Item: {
          ...cooldown,
          at: deps.now,
          holder: i.execution,
          expiresAt: Math.floor(deps.now / 1000) + i.cooldownMinutes * 60 + 60,
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #at < :since OR holder = :me',
        ExpressionAttributeNames: { '#at': 'at' },
        ExpressionAttributeValues: { ':since': deps.now - i.cooldownMinutes * 60_000, ':me': i.execution },
      }),
    );
  } catch (e) {
    await releaseKey(slot, slotHolder, 'until', deps);
    if (e instanceof ConditionalCheckFailedException)
      throw new CooldownHeldError(
        `cooldown: another execution acted on this node for ${i.class} less than ${i.cooldownMinutes} min ago`,
      );
    throw e;
  }
  return { slotHolder, slot, cooldownHolder: i.execution, cooldown };
}

async function reserveSlot(
  cluster: string,
  cap: number,
  holder: string,
  deps: { ddb: DynamoDBDocumentClient; tableName: string; now: number },
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
          Item: {
            ...key,
            holder,
            until: deps.now + HOUR_MS,
            expiresAt: Math.floor((deps.now + HOUR_MS) / 1000) + 60,
          },
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
 * Gives back what a node action reserved when the action never ran on the node (not sent,
 * undeliverable, the node not managed): its cap slot and the cooldown it claimed. Only the holder's
 * own reservation is released; a slot or cooldown someone else holds by now is left alone.
 */
export async function releaseReservation(
  r: Reservation,
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<void> {
  await releaseKey(r.slot, r.slotHolder, 'until', deps);
  await releaseKey(r.cooldown, r.cooldownHolder, 'at', deps);
}

async function releaseKey(
  key: TableKey,
  holder: string,
  attribute: 'until' | 'at',
  deps: { ddb: DynamoDBDocumentClient; tableName: string },
): Promise<void> {
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
