import { Metrics } from '@aws-lambda-powertools/metrics';
import { type CheckGroup, makeCheckHandler } from '../lambdas/aws/checks/groups.js';
import { resolveNode } from '../lambdas/aws/checks/node-context.js';
import { openIncidentKey } from '../lambdas/aws/incident-table.js';
import { runRemedy } from '../lambdas/aws/remedy/service.js';
import { actGate, actGateInputSchema } from '../lambdas/aws/workflow/act-gate.js';
import { decideIncident } from '../lambdas/aws/workflow/decide.js';
import { openIncident } from '../lambdas/aws/workflow/open-incident.js';
import { summarizeIncident } from '../lambdas/aws/workflow/summarize.js';
import { verifyRepair } from '../lambdas/aws/workflow/verify.js';
import { incidentInputSchema, type WorkflowConfig } from '../lambdas/core/workflow-config.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { asRole } from './guard.js';
import type { PolicyDocument, TemplateAuthorizer } from './iam.js';
import { unreachableCluster } from './kubernetes.js';
import { checkLambdaPayload, checkPublish, checkStatePayload } from './limits.js';
import { approvalTask } from './local-approver.js';
import type { RunOptions } from './local-workflow.js';
import { documentsOf, LocalRunCommand } from './ssm-runtime.js';
import { asStateMachine, authorizeInvoke, type TaskContext, taskError } from './task-context.js';
import { ACCOUNT, REGION, type ResolvedTemplate } from './template.js';
import { topicKeyRequests } from './workflow-clients.js';

export type Handler = (input: never) => unknown;

/**
 * Run Command with the node's behaviour; a collect-logs bundle is uploaded with the node's own role,
 * so the bucket policy must let it (else the command fails as the AWS CLI on the node reports it).
 */
export function nodeCommandRuntime(
  template: ResolvedTemplate,
  o: RunOptions,
  config: WorkflowConfig,
  authz: TemplateAuthorizer,
): LocalRunCommand {
  return new LocalRunCommand(documentsOf(template), o.node, async (i, answer) => {
    const bucket = i.Parameters?.Bucket?.[0];
    if (i.DocumentName !== config.documents.collectLogs || answer.status !== 'Success' || !bucket) return answer;
    // The node uploads its bundle with its own role, as collect-logs.sh does: a new object under
    // nodes/<aws:userid>/ (role id and instance id). The bucket policy must let it.
    const node = nodeRole(o.account, i.InstanceIds[0]);
    const userId = `${node.roleId}:${i.InstanceIds[0]}`;
    const key = `nodes/${userId}/${i.Parameters?.Prefix?.[0] ?? 'incidents'}/logs.tar.gz`;
    const why = await authz.deniedBecause(
      node.arn,
      {
        action: 's3:PutObject',
        resource: `arn:aws:s3:::${bucket}/${key}`,
        context: { 'aws:userid': userId, 's3:ObjectCreationOperation': 'true', 's3:if-none-match': '*' },
      },
      node.identity,
    );
    return why
      ? {
          status: 'Failed',
          stdout: '',
          stderr: `upload failed: An error occurred (AccessDenied) when calling the PutObject operation: Access Denied (${why})`,
        }
      : answer;
  });
}

/** The IAM role of an instance and its identity policies, as the recorded account holds them. */
function nodeRole(
  account: AccountSnapshot,
  instanceId: string,
): { arn: string; roleId: string; identity: PolicyDocument[] } {
  const instance = account.instances.find((x) => x.InstanceId === instanceId);
  const profile = account.instanceProfiles.find((p) => p.Arn === instance?.IamInstanceProfile?.Arn);
  const role = profile?.Roles?.[0];
  const held = account.roles[role?.RoleName ?? ''];
  const identity = [
    ...(held?.attached ?? []).map((arn) => account.managedPolicies[arn]),
    ...Object.values(held?.inline ?? {}),
  ].filter(Boolean) as PolicyDocument[];
  return {
    arn: role?.Arn ?? `arn:aws:iam::${ACCOUNT}:role/unknown`,
    roleId: role?.RoleId ?? 'AROAUNKNOWNROLE',
    identity,
  };
}

/** Every Task state of the synthesized definition, bound to the real handler code. */
export function taskHandlers(ctx: TaskContext): Record<string, Handler> {
  const handlers: Record<string, Handler> = {
    ...functionTasks(ctx),
    'Request drain approval': approvalTask(ctx, 'Request drain approval') as never,
    'Request eviction approval': approvalTask(ctx, 'Request eviction approval') as never,
    'Request approval': approvalTask(ctx, 'Request approval') as never,
    'Request remedy approval': approvalTask(ctx, 'Request remedy approval') as never,
    Notify: notifyTask(ctx, 'n') as never,
    'Notify failure': notifyTask(ctx, 'f') as never,
    'Notify bare failure': notifyTask(ctx, 'b') as never,
  };
  const send = sendCommandTask(ctx);
  const get = getInvocationTask(ctx);
  for (const prefix of ['Probe', 'Act', 'Recheck probe', 'Verify probe', 'Drain recheck', 'Evict recheck']) {
    handlers[`${prefix}: send command`] = send as never;
    handlers[`${prefix}: get result`] = get as never;
  }
  return handlers;
}

/** The Lambda Task states: each state's function, invoked as its own role. */
function functionTasks(ctx: TaskContext): Record<string, Handler> {
  const { clients: c, config, clock, tick } = ctx;
  const lambda = (state: string, f: Handler, bare = false) => lambdaTask(ctx, state, f, bare);
  const check = (state: string, g: CheckGroup) =>
    lambda(state, (i) => makeCheckHandler(g, c.aws, () => new Date(clock.t))(i));
  // The remedy function's calls go through the same guarded clients: its narrow grants decide.
  const remedyDeps = { clients: c.aws, config, now: () => clock.t };
  const kubernetes = ctx.options.kubernetes ?? unreachableCluster;
  const metrics = new Metrics({ namespace: 'PodDoctor', serviceName: 'pod-doctor' });
  const summarize = (state: string) =>
    lambda(state, (i) => summarizeIncident(i, { ddb: c.ddb, s3: c.s3, config, metrics, now: tick }));
  return {
    'Open incident': lambda('Open incident', (i: { incident: unknown; executionId: string }) =>
      openIncident(incidentInputSchema.parse(i.incident), i.executionId, { ddb: c.ddb, ssm: c.ssm, config, now: tick }),
    ),
    'Resolve node': lambda(
      'Resolve node',
      (i: { node: string; cluster: string }) => resolveNode(c.aws.ec2, c.aws.iam, i.node, i.cluster),
      true,
    ),
    'Check IAM': check('Check IAM', 'iam'),
    'Check ECR': check('Check ECR', 'ecr'),
    'Check network': check('Check network', 'network'),
    'Check EKS': check('Check EKS', 'eks'),
    'Check recent changes': check('Check recent changes', 'changes'),
    Decide: lambda('Decide', (i) => decideIncident(i, { eks: c.aws.eks, ddb: c.ddb, config, now: () => clock.t })),
    'Act: gate': lambda('Act: gate', (i) =>
      actGate(actGateInputSchema.parse(i), { ddb: c.ddb, ssm: c.ssm, config, now: tick }),
    ),
    'Drain: gate': lambda('Drain: gate', (i) =>
      actGate(actGateInputSchema.parse(i), { ddb: c.ddb, ssm: c.ssm, config, now: tick }),
    ),
    'Drain node': lambda('Drain node', (i) => kubernetes(i)),
    'Evict: gate': lambda('Evict: gate', (i) =>
      actGate(actGateInputSchema.parse(i), { ddb: c.ddb, ssm: c.ssm, config, now: tick }),
    ),
    'Evict stuck pods': lambda('Evict stuck pods', (i) => kubernetes(i)),
    'Evict stuck pods: dry run': lambda('Evict stuck pods: dry run', (i) => kubernetes(i)),
    'Watch recreated pods': lambda('Watch recreated pods', (i) => kubernetes(i)),
    'Inspect cluster': lambda('Inspect cluster', (i) => kubernetes(i)),
    'Watch pods start': lambda('Watch pods start', (i) => kubernetes(i)),
    'Prepare cluster remedy': lambda('Prepare cluster remedy', (i) => kubernetes(i)),
    'Apply cluster remedy': lambda('Apply cluster remedy', (i) => kubernetes(i)),
    'Prepare remedy': lambda('Prepare remedy', (i) => runRemedy(i, remedyDeps)),
    'Apply remedy': lambda('Apply remedy', (i) => runRemedy(i, remedyDeps)),
    'Check repair': lambda('Check repair', (i) => verifyRepair(i, { ddb: c.ddb, tableName: config.tableName })),
    'Check restart': lambda('Check restart', (i) => verifyRepair(i, { ddb: c.ddb, tableName: config.tableName })),
    'Check repair: pods stuck': lambda('Check repair: pods stuck', (i) =>
      verifyRepair(i, { ddb: c.ddb, tableName: config.tableName }),
    ),
    Summarize: summarize('Summarize'),
    'Record failure': summarize('Record failure'),
  };
}

/** A Lambda Task: invoke permission, payload limits, then the handler as the function's role. */
function lambdaTask(ctx: TaskContext, state: string, f: Handler, bare: boolean) {
  return async (input: unknown) => {
    const fn = ctx.roles.functionOfState(state);
    await authorizeInvoke(ctx, fn);
    const payload = bare ? input : (input as { Payload: unknown }).Payload;
    checkLambdaPayload(payload, 'RequestResponse');
    const out = await asRole(ctx.roles.roleOf(fn), () => f(payload as never));
    checkStatePayload(state, out);
    return bare ? out : { Payload: out, StatusCode: 200, ExecutedVersion: '$LATEST' };
  };
}

/** The sns:publish integration: publish permission, the topic key, SNS's own limits. */
function notifyTask(ctx: TaskContext, id: string) {
  return async (i: { TopicArn: string; Subject?: string; Message: string }) => {
    await asStateMachine(ctx, 'SNS', [
      { action: 'sns:Publish', resource: i.TopicArn, deniedAs: 'AuthorizationErrorException' },
      ...topicKeyRequests(ctx.template, i.TopicArn),
    ]);
    try {
      checkPublish(i);
    } catch (e) {
      throw taskError('SNS', e);
    }
    ctx.clients.published.push({ subject: i.Subject, message: i.Message });
    return { MessageId: id };
  };
}

/** The instance's tags as the condition keys ssm:SendCommand is evaluated with. */
function instanceTags(account: AccountSnapshot, id: string): Record<string, string> {
  return Object.fromEntries(
    (account.instances.find((x) => x.InstanceId === id)?.Tags ?? []).flatMap((t) => [
      [`ssm:resourceTag/${t.Key}`, String(t.Value)],
      [`aws:ResourceTag/${t.Key}`, String(t.Value)],
    ]),
  );
}

/** The ssm:sendCommand integration: the document and every instance (by its tags) must be allowed. */
function sendCommandTask(ctx: TaskContext) {
  const o = ctx.options;
  return async (i: { DocumentName: string; InstanceIds: string[]; Parameters: Record<string, string[]> }) => {
    // Step Functions reports an AccessDenied of the aws-sdk integration as Ssm.SsmException.
    await asStateMachine(
      ctx,
      'Ssm',
      [
        { action: 'ssm:SendCommand', resource: `arn:aws:ssm:${REGION}:${ACCOUNT}:document/${i.DocumentName}` },
        ...i.InstanceIds.map((id) => ({
          action: 'ssm:SendCommand',
          resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${id}`,
          context: instanceTags(o.account, id),
        })),
      ],
      'SsmException',
    );
    const out = await ctx.ssm.send(i);
    if (i.DocumentName === ctx.config.documents.repairPauseImage && o.newLinesAfterRepair) {
      const row = await ctx.table.get(openIncidentKey(String(ctx.incident.incidentKey)));
      if (row) await ctx.table.put({ ...row, lastSeen: ctx.clock.t + 10 * 60_000 });
    }
    return out;
  };
}

/** The ssm:getCommandInvocation integration. */
function getInvocationTask(ctx: TaskContext) {
  return async (i: { CommandId: string; InstanceId: string }) => {
    await asStateMachine(ctx, 'Ssm', [{ action: 'ssm:GetCommandInvocation', resource: '*' }]);
    return ctx.ssm.get(i);
  };
}
