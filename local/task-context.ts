import type { WorkflowConfig } from '../lambdas/core/workflow/workflow-config.js';
import type { LocalTable } from './dynamo.js';
import { AccessDeniedError, type AwsRequest, type TemplateAuthorizer } from './iam.js';
import type { RunOptions } from './local-workflow.js';
import type { LocalRunCommand } from './ssm-runtime.js';
import type { StackRoles } from './stack-roles.js';
import type { ResolvedTemplate } from './template.js';
import type { WorkflowClients } from './workflow-clients.js';

/** What every Task handler of one local run shares: its options, the template's roles and grants, clients, clock. */
export interface TaskContext {
  readonly options: RunOptions;
  readonly incident: Record<string, unknown>;
  readonly template: ResolvedTemplate;
  /** The template's workflow configuration with the run's overrides. */
  readonly config: WorkflowConfig;
  readonly table: LocalTable;
  readonly authz: TemplateAuthorizer;
  readonly roles: StackRoles;
  /** The state machine's role (every Task's own permissions). */
  readonly stateMachineRole: string;
  readonly clients: WorkflowClients;
  /** The run's clock (epoch ms); `tick` moves it one second. */
  readonly clock: { t: number };
  readonly tick: () => number;
  /** Run Command on the local nodes. */
  readonly ssm: LocalRunCommand;
}

/** The state machine role makes the requests, or the Task fails as Step Functions reports it. */
export async function asStateMachine(
  ctx: TaskContext,
  prefix: string,
  requests: AwsRequest[],
  as?: string,
): Promise<void> {
  try {
    for (const r of requests) await ctx.authz.authorize(ctx.stateMachineRole, r);
  } catch (e) {
    throw taskError(prefix, e, as);
  }
}

/** A denial inside a Task integration, named as Step Functions reports it (`SNS.…`, `Ssm.…`, `Lambda.…`). */
export function taskError(prefix: string, e: unknown, as?: string): Error {
  if (!(e instanceof AccessDeniedError) && !(e as { $fault?: string }).$fault) return e as Error;
  const err = e as Error;
  return Object.assign(new Error(err.message), { name: `${prefix}.${as ?? err.name}` });
}

/** The state machine may invoke the state's function, or the Task fails with Lambda.AWSLambdaException. */
export async function authorizeInvoke(ctx: TaskContext, fn: string): Promise<void> {
  await asStateMachine(ctx, 'Lambda', [{ action: 'lambda:InvokeFunction', resource: fn }], 'AWSLambdaException');
}
