import type { S3Client } from '@aws-sdk/client-s3';
import { GetCommandInvocationCommand, SendCommandCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { type CommandResult, lastJsonLine, probeFindings } from '../../core/contract/probe.js';
import type { Action } from '../../core/door/action-request.js';
import { COMMAND_OUTPUT_PREFIX, type CommandOutcome, type PendingCommand } from '../../core/door/state.js';
import type { WorkflowConfig } from '../../core/workflow/workflow-config.js';
import { putNewObject } from '../runtime/evidence-store.js';

/**
 * Run Command on one node, for the door only: SendCommand with pod-doctor's own document (the kind
 * names it; parameters are the document's own, never text), GetCommandInvocation until a final
 * status, the full output stored in the evidence bucket and a bounded excerpt returned.
 */

type NodeCommandAction = Extract<
  Action,
  { kind: 'probe-node' | 'repair-pause-image' | 'collect-logs' | 'restart-runtime' }
>;

export interface CommandDeps {
  readonly ssm: SSMClient;
  readonly s3: S3Client;
  readonly config: WorkflowConfig;
}

/** The document and its parameters for a node command. */
export function documentOf(
  a: NodeCommandAction,
  o: { readonly config: WorkflowConfig; readonly incidentId: string; readonly region: string },
): { readonly document: string; readonly parameters: Record<string, string[]> } {
  const docs = o.config.documents;
  switch (a.kind) {
    case 'probe-node':
      return { document: docs.probeNode, parameters: { Region: [o.region] } };
    case 'repair-pause-image':
      return { document: docs.repairPauseImage, parameters: { Image: [a.image], DryRun: ['false'] } };
    case 'collect-logs':
      return {
        document: docs.collectLogs,
        parameters: {
          Bucket: [o.config.evidenceBucket],
          Prefix: [`incidents/${o.incidentId}`],
          DryRun: ['false'],
        },
      };
    case 'restart-runtime':
      return { document: docs.restartRuntime, parameters: { Target: [a.target], DryRun: ['false'] } };
  }
}

/** The node could not be sent the command: not managed by SSM, or SendCommand refused it. */
export type SendRefusal = {
  readonly status: 'NotManaged' | 'CommandError';
  readonly reason: string;
  /** The SDK error's name, when SendCommand threw. */
  readonly error?: string;
};

/** Sends the command; its id, or why it could not be sent. */
export async function sendCommand(
  instanceId: string,
  d: { readonly document: string; readonly parameters: Record<string, string[]>; readonly comment: string },
  deps: CommandDeps,
): Promise<{ readonly commandId: string } | SendRefusal> {
  try {
    const r = await deps.ssm.send(
      new SendCommandCommand({
        DocumentName: d.document,
        // Documents update with UpdateMethod NewVersion: run the version this deployment wrote, by name.
        DocumentVersion: '$LATEST',
        InstanceIds: [instanceId],
        Parameters: d.parameters,
        Comment: d.comment.slice(0, 100),
      }),
    );
    const commandId = r.Command?.CommandId;
    if (!commandId) return { status: 'CommandError', reason: 'SendCommand returned no command id' };
    return { commandId };
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'InvalidInstanceId' || name === 'InvalidInstanceIdException')
      return { status: 'NotManaged', reason: `node not reachable through SSM (${name})`, error: name };
    if (/AccessDenied|NotAuthorized|Unauthorized/.test(name))
      return {
        status: 'CommandError',
        error: name,
        reason: `SendCommand was denied (${name}): pod-doctor may run commands only on instances whose eks:cluster-name, eks:eks-cluster-name or kubernetes.io/cluster/<name>=owned tag names a configured cluster`,
      };
    throw e;
  }
}

const RUNNING = new Set(['Pending', 'InProgress', 'Delayed']);

/**
 * One poll: still running (the poll counted), or the final result, its output stored. A poll counts
 * at least the poll intervals since the command was sent: after a completion event that never came
 * (the await timed out at the budget's end), one check finds the command done or timed out.
 */
export async function pollCommand(
  p: PendingCommand,
  o: { readonly incidentId: string; readonly probe: boolean; readonly now?: number; readonly pollSeconds?: number },
  deps: CommandDeps,
): Promise<{ readonly running: PendingCommand } | { readonly final: CommandOutcome }> {
  let result: CommandResult;
  try {
    const r = await deps.ssm.send(
      new GetCommandInvocationCommand({ CommandId: p.commandId, InstanceId: p.instanceId }),
    );
    result = {
      status: r.Status ?? 'Pending',
      stdout: r.StandardOutputContent ?? '',
      stderr: r.StandardErrorContent ?? '',
      responseCode: r.ResponseCode,
      commandId: p.commandId,
    };
  } catch (e) {
    // Right after SendCommand the invocation may not exist yet.
    if ((e as Error).name !== 'InvocationDoesNotExist') throw e;
    result = { status: 'Pending', commandId: p.commandId };
  }
  if (RUNNING.has(result.status)) {
    const elapsed = o.now === undefined || !o.pollSeconds ? 0 : (o.now - Date.parse(p.sentAt)) / 1000 / o.pollSeconds;
    const polls = Math.max(p.polls + 1, Math.floor(elapsed));
    if (polls < p.maxPolls) return { running: { ...p, polls } };
    result = { ...result, status: 'PollTimeout' };
  }
  return { final: await storeOutcome(p, result, o, deps) };
}

/** The final result with its output in the evidence bucket, an excerpt, and the probe's findings. */
async function storeOutcome(
  p: PendingCommand,
  r: CommandResult,
  o: { readonly incidentId: string; readonly probe: boolean },
  deps: CommandDeps,
): Promise<CommandOutcome> {
  const outputKey = `${COMMAND_OUTPUT_PREFIX}/${o.incidentId}/${p.commandId}.json`;
  // A new object only (the evidence bucket refuses overwrites): a poll run again keeps the first.
  await putNewObject(deps.s3, {
    Bucket: deps.config.evidenceBucket,
    Key: outputKey,
    Body: JSON.stringify({
      commandId: p.commandId,
      instanceId: p.instanceId,
      document: p.document,
      sentAt: p.sentAt,
      status: r.status,
      responseCode: r.responseCode ?? null,
      stdout: r.stdout ?? '',
      stderr: r.stderr ?? '',
    }),
    ContentType: 'application/json',
  });
  return outcomeOf(r, { outputKey, probe: o.probe });
}

const tail = (s: string | undefined, n: number) => (s ?? '').trim().slice(-n);

/** A command result as the state keeps it: bounded excerpts, the probe's findings and node facts. */
export function outcomeOf(
  r: CommandResult,
  o: { readonly outputKey?: string; readonly probe: boolean },
): CommandOutcome {
  const base: CommandOutcome = {
    ...(r.commandId ? { commandId: r.commandId } : {}),
    status: r.status,
    excerpt: excerptOf(r.stdout),
    ...(r.stderr ? { stderrExcerpt: tail(r.stderr, 1_000) } : {}),
    ...(o.outputKey ? { outputKey: o.outputKey } : {}),
  };
  if (!o.probe) return base;
  const node = lastJsonLine(r.stdout)?.node as Record<string, unknown> | undefined;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, 512) : undefined);
  const facts = {
    ...(str(node?.sandboxImage) ? { sandboxImage: str(node?.sandboxImage) } : {}),
    ...(str(node?.os) ? { os: str(node?.os) } : {}),
    ...(str(node?.containerd) ? { containerd: str(node?.containerd) } : {}),
  };
  return { ...base, findings: probeFindings(r).slice(0, 50), facts };
}

/** The last JSON line of a script's output (its contract), else the last lines, bounded. */
function excerptOf(stdout: string | undefined): string {
  const json = lastJsonLine(stdout);
  if (json) return JSON.stringify(json).slice(0, 3_000);
  return tail(stdout, 1_500);
}
