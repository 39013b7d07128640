import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ledgerCallKey } from '../../core/contract/incident-table.js';
import { type DoorResult, doorResultSchema, type PendingCommand, pendingSchema } from '../../core/door/state.js';
import type { TableDeps } from './records.js';

/**
 * The ledger row of one door call, written before the change and completed right after it: what
 * happened is recorded before anything can fail after it. The workflow retries the door's Task on
 * errors (a throttled table, a lost response, a function that stopped); a retried call reads this
 * row first and reports the first attempt's result, resumes its command, or — when the first attempt
 * began the change and ended before recording it — says so, and never gates the change twice.
 */

/** Which call: the execution, and the id the "<caller>: request" Pass gave it. */
export interface CallRef {
  readonly execution: string;
  readonly callId: string;
  readonly cluster: string;
  readonly retentionDays: number;
}

/** What the ledger holds of a call. */
export interface CallRecord {
  /** When an attempt began the change (ISO), if one did. */
  readonly acting?: string;
  /** The command the call sent, still to be polled. */
  readonly pending?: PendingCommand;
  /** The call's result, as the first attempt that finished it recorded it. */
  readonly result?: DoorResult;
  /** The result changed something (it counts in the action history). */
  readonly changed: boolean;
}

const DAY_S = 86_400;

/** The call's ledger row (read consistently: the retry must see what the attempt before it wrote). */
export async function readCall(ref: CallRef, deps: TableDeps): Promise<CallRecord | undefined> {
  const r = await deps.ddb.send(
    new GetCommand({ TableName: deps.tableName, Key: ledgerCallKey(ref.execution, ref.callId), ConsistentRead: true }),
  );
  const item = r.Item;
  if (!item) return undefined;
  const parsed = <T>(schema: { safeParse(x: unknown): { success: boolean; data?: T } }, json: unknown) => {
    if (typeof json !== 'string') return undefined;
    const p = schema.safeParse(JSON.parse(json));
    return p.success ? p.data : undefined;
  };
  const result = parsed<DoorResult>(doorResultSchema, item.resultJson);
  const pending = parsed<PendingCommand>(pendingSchema, item.pendingJson);
  return {
    ...(typeof item.acting === 'string' ? { acting: item.acting } : {}),
    ...(pending ? { pending } : {}),
    ...(result ? { result } : {}),
    changed: item.changed === true,
  };
}

/** SET of every attribute in `values` (names and values as placeholders: `status`, `at` are reserved words). */
function setAll(values: Record<string, unknown>, ifNotExists: readonly string[] = []) {
  const names: Record<string, string> = {};
  const vals: Record<string, unknown> = {};
  const parts = Object.entries(values).map(([k, v], i) => {
    names[`#a${i}`] = k;
    vals[`:v${i}`] = v;
    return ifNotExists.includes(k) ? `#a${i} = if_not_exists(#a${i}, :v${i})` : `#a${i} = :v${i}`;
  });
  return { expression: `SET ${parts.join(', ')}`, names, vals };
}

async function update(
  ref: CallRef,
  values: Record<string, unknown>,
  condition: string,
  deps: TableDeps,
  extra: { remove?: string } = {},
): Promise<boolean> {
  const s = setAll(
    { ...values, cluster: ref.cluster, expiresAt: Math.floor(Number(values.at) / 1000) + ref.retentionDays * DAY_S },
    ['at', 'expiresAt'],
  );
  try {
    await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: ledgerCallKey(ref.execution, ref.callId),
        UpdateExpression: `${s.expression}${extra.remove ? ` REMOVE ${extra.remove}` : ''}`,
        ConditionExpression: condition,
        // DynamoDB refuses a name placeholder no expression uses.
        ExpressionAttributeNames: {
          ...s.names,
          ...Object.fromEntries(
            Object.entries({ '#result': 'resultJson', '#acting': 'acting' }).filter(([k]) =>
              `${condition} ${extra.remove ?? ''}`.includes(k),
            ),
          ),
        },
        ExpressionAttributeValues: s.vals,
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** The call is about to change something: false when an attempt before this one already began it or recorded it. */
export function markActing(
  ref: CallRef,
  r: Pick<DoorResult, 'slot' | 'kind' | 'line' | 'digest'> & { readonly at: number },
  deps: TableDeps,
): Promise<boolean> {
  const values = { slot: r.slot, kind: r.kind, line: r.line, digest: r.digest, at: r.at };
  const acting = new Date(r.at).toISOString();
  return update(ref, { ...values, acting }, 'attribute_not_exists(#result) AND attribute_not_exists(#acting)', deps);
}

/** The change was refused before it took effect (SendCommand did not accept it): a retry may gate it again. */
export async function clearActing(ref: CallRef, at: number, deps: TableDeps): Promise<void> {
  await update(ref, { at }, 'attribute_not_exists(#result)', deps, { remove: '#acting' });
}

/** The command the call sent (a retry polls it instead of sending another). */
export async function recordPending(ref: CallRef, pending: PendingCommand, at: number, deps: TableDeps): Promise<void> {
  await update(ref, { pendingJson: JSON.stringify(pending), at }, 'attribute_not_exists(#result)', deps);
}

/**
 * The call's result, unless an attempt before this one recorded one: the result that stands (the
 * first) is returned either way.
 */
export async function recordResult(
  ref: CallRef,
  result: DoorResult,
  changed: boolean,
  deps: TableDeps,
): Promise<{ readonly result: DoorResult; readonly changed: boolean }> {
  const values = {
    slot: result.slot,
    kind: result.kind,
    line: result.line,
    digest: result.digest,
    outcome: result.outcome,
    code: result.code ?? null,
    reason: result.reason.slice(0, 2_000),
    status: result.record?.status ?? result.command?.status ?? null,
    resultJson: JSON.stringify(result),
    changed,
    at: Date.parse(result.at),
  };
  if (await update(ref, values, 'attribute_not_exists(#result)', deps)) return { result, changed };
  const first = await readCall(ref, deps);
  if (!first?.result) throw new Error(`the ledger row of door call ${ref.callId} holds no readable result`);
  return { result: first.result, changed: first.changed };
}
