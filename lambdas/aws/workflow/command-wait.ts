import {
  InvalidToken,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { commandWaitKey, TTL_ATTRIBUTE } from '../../core/contract/incident-table.js';
import {
  type CommandAwait,
  type CommandCompletion,
  type CommandStatusEvent,
  commandAwaitSchema,
  commandStatusEventSchema,
} from '../../core/door/command-events.js';

/**
 * The rendezvous of a node command's completion: "Door: await command" (waitForTaskToken) leaves its
 * task token under the command's id, the rule on Run Command's status-change events leaves the final
 * status there; whichever comes second resumes the workflow. DynamoDB applies the two updates of one
 * item one after the other and each returns the item as it left it, so one of them sees both: the
 * event that arrives before the token (a quick command) is not lost. A second resume is refused by
 * Step Functions (one answer per token) and ignored here.
 */
/** Either side of the rendezvous: the workflow's await (its task token) or Run Command's status-change event. */
export const commandWaitInputSchema = z.union([commandStatusEventSchema, commandAwaitSchema]);

export interface CommandWaitDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly sfn: SFNClient;
  readonly now: () => number;
}

/** What the rendezvous did: resumed the workflow, or left its half for the other side. */
export type Rendezvous = { readonly resumed: boolean; readonly commandId: string };

/** Two days: the item outlives every await that could read it (the longest is the longest command's budget, minutes). */
const expiry = (now: number) => Math.floor(now / 1000) + 2 * 86_400;

/** "Door: await command": stores the token; resumes at once when the command already finished. */
export async function awaitCommand(input: CommandAwait, deps: CommandWaitDeps): Promise<Rendezvous> {
  const item = await update(
    input.commandId,
    'SET taskToken = :t, instanceId = :i, #ttl = :e',
    { ':t': input.taskToken, ':i': input.instanceId, ':e': expiry(deps.now()) },
    deps,
  );
  if (typeof item.status !== 'string') return { resumed: false, commandId: input.commandId };
  return resume(
    input.taskToken,
    { commandId: input.commandId, status: item.status as CommandCompletion['status'] },
    deps,
  );
}

/** A final invocation status from EventBridge: stores it; resumes the workflow when its token is there. */
export async function commandStatusChanged(event: CommandStatusEvent, deps: CommandWaitDeps): Promise<Rendezvous> {
  const commandId = event.detail['command-id'];
  const item = await update(
    commandId,
    'SET #status = :s, eventInstanceId = :i, #ttl = if_not_exists(#ttl, :e)',
    { ':s': event.detail.status, ':i': event.detail['instance-id'], ':e': expiry(deps.now()) },
    deps,
    { '#status': 'status' },
  );
  if (typeof item.taskToken !== 'string') return { resumed: false, commandId };
  return resume(item.taskToken, { commandId, status: event.detail.status }, deps);
}

async function update(
  commandId: string,
  expression: string,
  values: Record<string, unknown>,
  deps: CommandWaitDeps,
  names: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const r = await deps.ddb.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key: commandWaitKey(commandId),
      UpdateExpression: expression,
      ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE, ...names },
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return r.Attributes ?? {};
}

/** SendTaskSuccess; a token already answered or timed out (the other side, or the fallback check, came first) is not an error. */
async function resume(token: string, completion: CommandCompletion, deps: CommandWaitDeps): Promise<Rendezvous> {
  try {
    await deps.sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(completion) }));
    return { resumed: true, commandId: completion.commandId };
  } catch (e) {
    if (e instanceof TaskTimedOut || e instanceof TaskDoesNotExist || e instanceof InvalidToken)
      return { resumed: false, commandId: completion.commandId };
    throw e;
  }
}
