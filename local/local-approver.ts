import { requestApproval } from '../lambdas/aws/workflow/approval.js';
import { handleApprovalHttp } from '../lambdas/aws/workflow/approval-page.js';
import { asRole } from './guard.js';
import type { RunOptions } from './local-workflow.js';
import { authorizeInvoke, type TaskContext } from './task-context.js';

type ApprovalHttpRequest = Parameters<typeof handleApprovalHttp>[0];

/**
 * A "Request approval" Task (waitForTaskToken): the function sends the request, then — unless the
 * run lets the request time out — a mail scanner and the approver answer through the approval page,
 * and the Task resumes with what the page sent back.
 */
export function approvalTask(ctx: TaskContext, state: string) {
  return async (params: { FunctionName: string; Payload: Record<string, unknown> }) => {
    const fn = ctx.roles.functionOfState(state);
    await authorizeInvoke(ctx, fn);
    const { answer, killSwitch } = approverOf(ctx.options, params.Payload, asked(ctx));
    if (answer === 'timeout' || answer === undefined)
      throw Object.assign(new Error('States.Timeout'), { name: 'States.Timeout' });
    await sendApprovalRequest(ctx, fn, params.Payload);
    await ctx.options.duringApproval?.();
    // Asked, and no one answers before the deadline (the approvers got the signed link).
    if (answer === 'unanswered') throw Object.assign(new Error('States.Timeout'), { name: 'States.Timeout' });
    if (killSwitch) ctx.clients.setKillSwitch(killSwitch);
    await answerApproval(ctx, answer);
    return JSON.parse(ctx.clients.taskOutputs.at(-1) ?? '{}') as unknown;
  };
}

const asks = new WeakMap<TaskContext, number>();
/** How many approval requests this run asked before this one. */
function asked(ctx: TaskContext): number {
  const n = asks.get(ctx) ?? 0;
  asks.set(ctx, n + 1);
  return n;
}

/**
 * The run's answer to the request, and the kill switch an operator sets meanwhile: the drain's or
 * the eviction's own (by what the door asks for), or the run's.
 */
function approverOf(o: RunOptions, payload: Record<string, unknown>, index: number) {
  const kind = (payload.ask as { kind?: string } | undefined)?.kind;
  if (o.approvals && index < o.approvals.length) return { answer: o.approvals[index], killSwitch: undefined };
  if (kind === 'drain-node')
    return { answer: o.drainApproval ?? o.approval, killSwitch: o.killSwitchDuringDrainApproval };
  if (kind === 'evict-stuck-pods')
    return { answer: o.evictApproval ?? o.approval, killSwitch: o.killSwitchDuringEvictApproval };
  return { answer: o.approval, killSwitch: o.killSwitchDuringApproval };
}

/** The approval request function, as its role, with its environment: stores the token, mails the signed link. */
async function sendApprovalRequest(ctx: TaskContext, fn: string, payload: Record<string, unknown>): Promise<void> {
  const env = ctx.roles.envOf(fn);
  await asRole(ctx.roles.roleOf(fn), async () =>
    requestApproval(payload as never, {
      ddb: ctx.clients.ddb,
      tableName: ctx.config.tableName,
      secret: await secretOf(ctx, fn),
      sns: ctx.clients.sns,
      topicArn: env.TOPIC_ARN,
      callbackUrl: env.CALLBACK_URL,
      timeoutMinutes: Number(env.APPROVAL_TIMEOUT_MINUTES ?? 60),
      now: () => ctx.clock.t,
    }),
  );
}

/** The approval secret a function reads (its APPROVAL_SECRET_ARN), through the guarded Secrets Manager client. */
async function secretOf(ctx: TaskContext, fn: string): Promise<string> {
  const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const r = await ctx.clients.secrets.send(
    new GetSecretValueCommand({ SecretId: ctx.roles.envOf(fn).APPROVAL_SECRET_ARN }),
  );
  return String(r.SecretString);
}

/**
 * A mail scanner fetches the link first (it must change nothing); then the approver opens the
 * page and presses a button, which POSTs the page's form: unsigned requests to the function URL.
 */
async function answerApproval(ctx: TaskContext, decision: 'approve' | 'reject'): Promise<void> {
  const link = /^Review and decide: +(\S+)$/m.exec(ctx.clients.published.at(-1)?.message ?? '')?.[1];
  const query = Object.fromEntries(new URL(String(link)).searchParams.entries());
  const get = () => approvalPage(ctx, { method: 'GET', query, sourceIp: '198.51.100.7', userAgent: 'scanner' });
  await get();
  const form = new URLSearchParams(
    [...(await get()).body.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]] as [string, string]),
  );
  form.set('decision', decision);
  const r = await approvalPage(ctx, {
    method: 'POST',
    query: {},
    body: form.toString(),
    sourceIp: '203.0.113.10',
    userAgent: 'Mozilla/5.0 (approver)',
  });
  if (r.statusCode !== 200) throw new Error(`approval callback answered ${r.statusCode}: ${r.body}`);
}

/**
 * One request to the approval page's function URL (auth type NONE), handled as the callback function's
 * role. Lambda authorises a URL call twice: `lambda:InvokeFunctionUrl` for the auth type, and
 * `lambda:InvokeFunction` with `lambda:InvokedViaFunctionUrl` true (https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html).
 */
async function approvalPage(ctx: TaskContext, req: ApprovalHttpRequest) {
  const callback = ctx.roles.functionUrl().fn;
  await ctx.authz.authorize('anonymous', {
    action: 'lambda:InvokeFunctionUrl',
    resource: callback,
    context: { 'lambda:FunctionUrlAuthType': 'NONE' },
  });
  await ctx.authz.authorize('anonymous', {
    action: 'lambda:InvokeFunction',
    resource: callback,
    context: { 'lambda:InvokedViaFunctionUrl': 'true', 'lambda:FunctionUrlAuthType': 'NONE' },
  });
  return asRole(ctx.roles.roleOf(callback), async () =>
    handleApprovalHttp(req, {
      ddb: ctx.clients.ddb,
      tableName: ctx.config.tableName,
      secret: await secretOf(ctx, callback),
      sfn: ctx.clients.sfn,
      now: () => ctx.clock.t,
    }),
  );
}
