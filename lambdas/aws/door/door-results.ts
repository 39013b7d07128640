import { type ActionRequest, actionLine, requestDigest } from '../../core/door/action-request.js';
import type { DoorResult, DoorRun, DoorState } from '../../core/door/state.js';
import { type CallRecord, type CallRef, recordResult } from './call-ledger.js';
import type { DoorInput } from './door-input.js';
import type { DoorDeps } from './executor.js';
import { recordAction, type TableDeps } from './records.js';

/**
 * How a door call ends: its result recorded once in the call's ledger row (the first attempt's
 * stands), kept under its slot, counted in the action history when it changed something; and how a
 * retried call picks up what an attempt before it recorded.
 */

/** A door call the request Pass did not name: without an id a retry could not find its record. */
export class DoorCallIdError extends Error {
  override readonly name = 'DoorCallIdError';
}

const iso = (t: number) => new Date(t).toISOString();

export function requestOf(input: DoorInput): ActionRequest {
  const { call } = input.door;
  return {
    slot: call.slot,
    action: call.request.action,
    disposition: call.request.disposition,
    description: call.request.description,
    incident: input.incident,
    execution: input.execution,
    scope: { region: input.region },
  };
}

/** The approval answer of this call, if the door asked for one. */
export const answerOf = (input: DoorInput) =>
  input.door.approval?.slot === input.door.call.slot ? input.door.approval : undefined;

export function withRun(input: DoorInput, run: DoorRun): DoorState {
  return { ...input.door, run };
}

export const tableOf = (deps: DoorDeps): TableDeps => ({ ddb: deps.ddb, tableName: deps.config.tableName });

/** The call's ledger row. */
export function callRef(input: DoorInput, deps: DoorDeps): CallRef {
  const callId = input.door.call.id;
  if (!callId) throw new DoorCallIdError(`door call ${input.door.call.slot} has no id (its request Pass names it)`);
  return {
    execution: input.execution,
    callId,
    cluster: input.incident.cluster,
    retentionDays: deps.config.historyRetentionDays,
  };
}

type ResultFields = Omit<DoorResult, 'slot' | 'kind' | 'line' | 'digest' | 'at'>;

/** The call's result: recorded (unless an attempt before recorded one: that one stands), then kept. */
export async function finish(
  input: DoorInput,
  deps: DoorDeps,
  fields: ResultFields,
  now: number,
  digest = requestDigest(requestOf(input)),
  changed = false,
): Promise<DoorState> {
  const request = requestOf(input);
  const result: DoorResult = {
    slot: request.slot,
    kind: request.action.kind,
    line: actionLine(request.action),
    digest,
    at: iso(now),
    ...fields,
    reason: fields.reason.slice(0, 4_000),
  };
  const first = await recordResult(callRef(input, deps), result, changed, tableOf(deps));
  return recorded(input, deps, first.result, first.changed);
}

/** A recorded result in the state; a change counts in the action history (an idempotent write: same key). */
async function recorded(input: DoorInput, deps: DoorDeps, result: DoorResult, changed: boolean): Promise<DoorState> {
  const request = requestOf(input);
  const a = request.action;
  if (changed)
    await recordAction(
      {
        cluster: request.incident.cluster,
        incidentId: request.incident.id,
        kind: a.kind,
        ...('node' in a && a.node ? { instanceId: a.node.instanceId } : {}),
      },
      Date.parse(result.at),
      tableOf(deps),
    );
  return {
    ...input.door,
    run: { slot: request.slot, step: 'done', probed: input.door.run?.probed ?? false },
    last: result,
    done: { ...input.door.done, [request.slot]: result },
    ...(changed && result.sentAt ? { lastAction: { slot: request.slot, kind: a.kind, sentAt: result.sentAt } } : {}),
  };
}

/**
 * What an attempt before this one left: its result (reported as it was), its command (polled, not
 * sent again), or a change it began and did not record (reported as such, never run twice).
 */
export async function replayed(
  input: DoorInput,
  deps: DoorDeps,
  prior: CallRecord | undefined,
  probed: boolean,
): Promise<DoorState | undefined> {
  if (!prior) return undefined;
  if (prior.result) return recorded(input, deps, prior.result, prior.changed);
  if (prior.pending)
    return withRun(input, { slot: input.door.call.slot, step: 'wait', probed, pending: prior.pending });
  if (!prior.acting) return undefined;
  const line = actionLine(requestOf(input).action);
  return finish(
    input,
    deps,
    {
      outcome: 'failed',
      code: 'in-doubt',
      reason: `${line}: an attempt began this change at ${prior.acting} and stopped before recording what became of it; the door does not run a change twice: check the target`,
    },
    deps.now(),
  );
}
