import type { SSMClient } from '@aws-sdk/client-ssm';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type GateFacts, gateBlock } from '../../core/act-gate.js';
import { FAILURE_CLASSES } from '../../core/failure-classes.js';
import { type CommandResult, probeFindings } from '../../core/probe.js';
import type { WorkflowConfig } from '../../core/workflow-config.js';
import '../../core/zod-english.js';
import { nodeCooldownKey } from '../incident-table.js';
import { CapReachedError, CooldownHeldError, type Reservation, reserveAction } from './reservations.js';
import { countAffectedNodes, readKillSwitch } from './safety-reads.js';

/** The gate refused the action: the Catch of "Act: gate" ends the incident recorded and notified. */
export class ActBlockedError extends Error {
  override readonly name = 'ActBlockedError';
}

/** The gate's reason from a caught ActBlockedError: a Lambda error's Cause is its JSON error document. */
export function blockedReason(e: { Error?: string; Cause?: string }): string {
  try {
    const doc = JSON.parse(e.Cause ?? '') as { errorMessage?: unknown };
    if (typeof doc.errorMessage === 'string') return doc.errorMessage;
  } catch {
    // not JSON: the cause is the message itself
  }
  return e.Cause ?? e.Error ?? 'refused';
}

const commandResult = z.looseObject({ status: z.string() });

/** The workflow state as "Act: gate" receives it (the fields it reads; the rest passes by). */
export const actGateInputSchema = z.object({
  class: z.enum(FAILURE_CLASSES),
  cluster: z.string().check(z.minLength(1)),
  execution: z.object({ arn: z.string().check(z.minLength(1)) }),
  node: z.optional(z.looseObject({ instanceId: z.optional(z.string().check(z.regex(/^i-[0-9a-f]{8,17}$/))) })),
  plan: z.object({
    nodeAction: z.nullish(z.looseObject({ id: z.string() })),
    nodeGroupSize: z.optional(z.number().check(z.int(), z.minimum(0))),
  }),
  diagnosis: z.optional(z.array(z.record(z.string(), z.unknown()))),
  /** The probe after an approval ("Recheck probe"). */
  recheck: z.optional(
    z.object({
      result: z.optional(commandResult),
      error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
    }),
  ),
});
export type ActGateInput = z.output<typeof actGateInputSchema>;

export interface ActGateDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly ssm: SSMClient;
  readonly config: WorkflowConfig;
  readonly now: () => number;
}

/** What "Act: gate" leaves for the command steps: the stamp, and the reservation Summarize may release. */
export interface ActGateOutput {
  readonly sentAt: string;
  readonly counter: { readonly n: 0 };
  readonly gate: { readonly checkedAt: string; readonly reservation: Reservation };
}

/**
 * The one gate right before every Act (first action, after an approval, follow-up): re-reads the
 * kill switch, the node's cooldown, the breaker and whether the node still fails, then reserves a
 * slot of the hourly cap and the cooldown with conditional writes. Throws {@link ActBlockedError}
 * with the reason when the action must not run.
 */
export async function actGate(input: ActGateInput, deps: ActGateDeps): Promise<ActGateOutput> {
  const now = deps.now();
  const instanceId = input.node?.instanceId;
  const action = input.plan.nodeAction?.id;
  if (!instanceId || !action) throw new ActBlockedError('no node or no node action to run');
  const why = gateBlock({ ...(await gateFacts(input, instanceId, now, deps)), action });
  if (why) throw new ActBlockedError(why);
  try {
    const reservation = await reserveAction(
      {
        cluster: input.cluster,
        instanceId,
        class: input.class,
        execution: input.execution.arn,
        action,
        cap: deps.config.limits.maxNodeActionsPerClusterPerHour,
        cooldownMinutes: deps.config.limits.nodeCooldownMinutes,
      },
      { ddb: deps.ddb, tableName: deps.config.tableName, now },
    );
    const at = new Date(now).toISOString();
    return { sentAt: at, counter: { n: 0 }, gate: { checkedAt: at, reservation } };
  } catch (e) {
    if (e instanceof CapReachedError || e instanceof CooldownHeldError) throw new ActBlockedError(e.message);
    throw e;
  }
}

/** Everything the gate re-reads, read now. */
async function gateFacts(
  input: ActGateInput,
  instanceId: string,
  now: number,
  deps: ActGateDeps,
): Promise<Omit<GateFacts, 'action'>> {
  const { config } = deps;
  const ks = await readKillSwitch(deps.ssm, config.killSwitchParameterName);
  const cooldown = await deps.ddb.send(
    new GetCommand({ TableName: config.tableName, Key: nodeCooldownKey(instanceId, input.class) }),
  );
  // A cooldown this execution claimed (its first action, before a follow-up) does not stop it.
  const ownCooldown = cooldown.Item?.holder === input.execution.arn;
  const at = typeof cooldown.Item?.at === 'number' && !ownCooldown ? cooldown.Item.at : undefined;
  const affectedNodes = await countAffectedNodes(deps.ddb, {
    tableName: config.tableName,
    cluster: input.cluster,
    class: input.class,
    since: now - config.limits.incidentWindowMinutes * 60_000,
  });
  return {
    class: input.class,
    killSwitch: ks.killSwitch,
    killSwitchReadable: ks.readable,
    limits: config.limits,
    lastNodeActionAt: at,
    affectedNodes,
    nodeGroupSize: input.plan.nodeGroupSize ?? 0,
    probe: newestProbe(input),
    now,
  };
}

/** The re-check after an approval when there was one, else the diagnosis probe. */
function newestProbe(input: ActGateInput): GateFacts['probe'] {
  if (input.recheck) {
    const r = input.recheck.result;
    if (r?.status === 'Success') return { findings: probeFindings(r as CommandResult) };
    return {
      notRun: `the probe before acting did not run (${r?.status ?? input.recheck.error?.Error ?? 'no result'})`,
    };
  }
  const branch = input.diagnosis?.find((b) => 'probe' in b) as { probe?: CommandResult } | undefined;
  const probe = branch?.probe;
  if (probe?.status === 'Success') return { findings: probeFindings(probe) };
  return { notRun: `no probe of the node (${probe?.status ?? 'none'})` };
}
