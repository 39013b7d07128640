import { randomUUID } from 'node:crypto';
import { awaitCommand, commandStatusChanged } from '../lambdas/aws/workflow/command-wait.js';
import {
  COMMAND_INVOCATION_STATUS_CHANGE,
  commandAwaitSchema,
  commandStatusEventSchema,
  FINAL_INVOCATION_STATUSES,
} from '../lambdas/core/door/command-events.js';
import { matchesEventPattern } from './event-pattern.js';
import { asRole } from './guard.js';
import type { TemplateAuthorizer } from './iam.js';
import type { LocalRunCommand } from './ssm-runtime.js';
import type { StackRoles } from './stack-roles.js';
import { ACCOUNT, arnOf, idsOfType, REGION, type ResolvedTemplate } from './template.js';
import type { WorkflowClients } from './workflow-clients.js';

/** What the await needs of a local run (the Task context's parts), and the state machine's invoke check. */
export interface AwaitContext {
  readonly options: { readonly commandEvents?: 'delivered' | 'lost' };
  readonly template: ResolvedTemplate;
  readonly config: { readonly tableName: string };
  readonly authz: TemplateAuthorizer;
  readonly roles: StackRoles;
  readonly clients: Pick<WorkflowClients, 'ddb' | 'sfn' | 'taskOutputs'>;
  readonly clock: { t: number };
  readonly ssm: LocalRunCommand;
  /** The state machine may invoke the function (Lambda.AWSLambdaException otherwise). */
  readonly authorizeInvoke: (fn: string) => Promise<void>;
}

/** What Run Command's status-change event carries, as Systems Manager emits it (lambdas/core/door/command-events.ts). */
export function statusChangeEvent(c: { commandId: string; instanceId: string; document: string; status: string }) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': COMMAND_INVOCATION_STATUS_CHANGE,
    source: 'aws.ssm',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [`arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${c.instanceId}`],
    detail: {
      'command-id': c.commandId,
      'document-name': c.document,
      'instance-id': c.instanceId,
      'requested-date-time': new Date().toISOString(),
      status: c.status,
    },
  };
}

/** The function targets of the template's rules on the default bus whose pattern matches `event`, with each rule's ARN. */
export function matchingFunctionTargets(template: ResolvedTemplate, event: unknown): { rule: string; fn: string }[] {
  return idsOfType(template, 'AWS::Events::Rule').flatMap((id) => {
    const p = template.Resources[id].Properties ?? {};
    if (p.EventBusName !== undefined || p.State === 'DISABLED') return [];
    if (!matchesEventPattern(p.EventPattern as Record<string, unknown>, event)) return [];
    return ((p.Targets as { Arn: string }[] | undefined) ?? [])
      .filter((t) => t.Arn.includes(':function:'))
      .map((t) => ({ rule: arnOf(template, id), fn: t.Arn }));
  });
}

/**
 * "Door: await command" (waitForTaskToken) as deployed: the command-wait function stores the task
 * token as its role; the node runs the command; when it ends within the await's deadline, Systems
 * Manager emits the status-change event and EventBridge invokes every target of every rule whose
 * pattern (from the template) matches it, each function as its role, with Lambda's resource policy
 * letting events.amazonaws.com invoke it for that rule. The Task resumes with what SendTaskSuccess
 * sent; with no resume by the deadline (no event, a lost one, no matching rule) it fails
 * States.Timeout after the deadline's time has passed on the run's clock.
 */
export function commandAwaitTask(ctx: AwaitContext, state: string) {
  return async (params: { FunctionName: string; Payload: Record<string, unknown> }) => {
    const fn = ctx.roles.functionOfState(state);
    await ctx.authorizeInvoke(fn);
    const input = commandAwaitSchema.parse(params.Payload);
    const resumed = ctx.clients.taskOutputs.length;
    const deps = () => ({
      ddb: ctx.clients.ddb,
      tableName: ctx.config.tableName,
      sfn: ctx.clients.sfn,
      now: () => ctx.clock.t,
    });
    await asRole(ctx.roles.roleOf(fn), () => awaitCommand(input, deps()));
    const pollSeconds = Number(ctx.roles.parametersOf('Door').pollSeconds ?? 5);
    const timeoutSeconds = ctx.roles.timeoutOf(state);
    const ended = ctx.ssm.finish(input.commandId, Math.floor(timeoutSeconds / pollSeconds));
    if (ended && ctx.options.commandEvents !== 'lost' && isFinal(ended.status)) {
      const event = statusChangeEvent({ commandId: input.commandId, ...ended });
      for (const t of matchingFunctionTargets(ctx.template, event)) {
        await ctx.authz.authorize('events.amazonaws.com', {
          action: 'lambda:InvokeFunction',
          resource: t.fn,
          context: { 'aws:SourceArn': t.rule, 'aws:SourceAccount': ACCOUNT },
        });
        if (t.fn !== fn) throw new Error(`no local handler for the rule target ${t.fn}`);
        await asRole(ctx.roles.roleOf(t.fn), () => commandStatusChanged(commandStatusEventSchema.parse(event), deps()));
      }
    }
    if (ctx.clients.taskOutputs.length > resumed) return JSON.parse(ctx.clients.taskOutputs.at(-1) ?? '{}') as unknown;
    ctx.clock.t += timeoutSeconds * 1000;
    throw Object.assign(new Error('States.Timeout'), { name: 'States.Timeout' });
  };
}

const isFinal = (status: string) => (FINAL_INVOCATION_STATUSES as readonly string[]).includes(status);
