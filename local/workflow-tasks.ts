import { Metrics } from '@aws-lambda-powertools/metrics';
import { type CheckGroup, makeCheckHandler } from '../lambdas/aws/checks/groups.js';
import { accountRemedies } from '../lambdas/aws/door/account-remedies.js';
import { doorInputSchema } from '../lambdas/aws/door/door-input.js';
import type { DoorDeps } from '../lambdas/aws/door/executor.js';
import { doorStep } from '../lambdas/aws/door/service.js';
import { resolveNode } from '../lambdas/aws/readers/account/node-context.js';
import { decideEventSchema, decideIncident } from '../lambdas/aws/workflow/decide.js';
import { openIncident } from '../lambdas/aws/workflow/open-incident.js';
import { summarizeEventSchema, summarizeIncident } from '../lambdas/aws/workflow/summarize.js';
import { verifyEventSchema, verifyRepair } from '../lambdas/aws/workflow/verify.js';
import { incidentInputSchema, type WorkflowConfig } from '../lambdas/core/workflow/workflow-config.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { commandAwaitTask } from './command-completion.js';
import { asRole } from './guard.js';
import type { PolicyDocument, TemplateAuthorizer } from './iam.js';
import { unreachableCluster } from './kubernetes.js';
import { checkLambdaPayload, checkPublish, checkStatePayload } from './limits.js';
import { approvalTask } from './local-approver.js';
import type { RunOptions } from './local-workflow.js';
import { placementOf } from './network.js';
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
  return {
    ...functionTasks(ctx),
    ...kubernetesTasks(ctx),
    'Door: ask': approvalTask(ctx, 'Door: ask') as never,
    'Door: await command': commandAwaitTask(
      { ...ctx, authorizeInvoke: (fn) => authorizeInvoke(ctx, fn) },
      'Door: await command',
    ) as never,
    Notify: notifyTask(ctx, 'n') as never,
    'Notify failure': notifyTask(ctx, 'f') as never,
    'Notify bare failure': notifyTask(ctx, 'b') as never,
  };
}

/** The Lambda Task states: each state's function, invoked as its own role, its input parsed as its handler parses it. */
function functionTasks(ctx: TaskContext): Record<string, Handler> {
  const { clients: c, config, clock, tick } = ctx;
  const lambda = (state: string, f: Handler, bare = false) => lambdaTask(ctx, state, f, bare);
  const check = (state: string, g: CheckGroup) =>
    lambda(state, (i) => makeCheckHandler(g, c.aws, () => new Date(clock.t))(i));
  const metrics = new Metrics({ namespace: 'PodDoctor', serviceName: 'pod-doctor' });
  const summarize = (state: string) =>
    lambda(state, (i) =>
      summarizeIncident(summarizeEventSchema.parse(i), {
        ddb: c.ddb,
        s3: c.s3,
        config,
        metrics,
        now: tick,
        region: REGION,
      }),
    );
  return {
    'Open incident': lambda('Open incident', (i: { incident: unknown; executionId: string }) =>
      openIncident(incidentInputSchema.parse(i.incident), i.executionId, {
        ddb: c.ddb,
        ssm: c.ssm,
        config,
        now: tick,
        region: REGION,
      }),
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
    Decide: lambda('Decide', (i) =>
      decideIncident(decideEventSchema.parse(i), { eks: c.aws.eks, ddb: c.ddb, config, now: () => clock.t }),
    ),
    ...Object.fromEntries(
      ctx.roles
        .withCopies('Door')
        .map((state) => [state, lambda(state, (i) => doorStep(doorInputSchema.parse(i), doorDeps(ctx, state)), true)]),
    ),
    'Check repair': lambda('Check repair', (i) => verifyRepair(verifyEventSchema.parse(i))),
    Summarize: summarize('Summarize'),
    'Record failure': summarize('Record failure'),
  };
}

/** The door's clients, as its role: the account, SSM on the local nodes, the cluster through its own access entry. */
function doorDeps(ctx: TaskContext, state: string): DoorDeps {
  const { clients: c, config, tick } = ctx;
  const fn = ctx.roles.functionOfState(state);
  const role = ctx.roles.roleOf(fn);
  const kubernetes = ctx.options.kubernetes ?? unreachableCluster;
  const placement = placementOf(ctx.template, fn);
  return {
    ddb: c.ddb,
    ssm: c.ssm,
    s3: c.s3,
    aws: c.aws,
    // As deployed: the account remedies only in the door the stack bundled them into.
    accountRemedies: ctx.roles.handlerOf(fn) === 'door-remedies' ? accountRemedies(c.aws) : undefined,
    cluster: async () => kubernetes.api(role, placement),
    config,
    now: tick,
    wait: kubernetes.wait,
  };
}

/** The Kubernetes function's Task states (read-only), signing as its role. */
function kubernetesTasks(ctx: TaskContext): Record<string, Handler> {
  const kubernetes = ctx.options.kubernetes ?? unreachableCluster;
  const states = ['Inspect cluster', 'Watch pods start', 'Watch recreated pods'].flatMap((s) =>
    ctx.roles.withCopies(s),
  );
  return Object.fromEntries(
    states.map((state) => {
      const fn = ctx.roles.functionOfState(state);
      const read = kubernetes.read(ctx.roles.roleOf(fn), placementOf(ctx.template, fn));
      return [state, lambdaTask(ctx, state, (i) => read(i), false)];
    }),
  );
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
