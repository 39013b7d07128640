import './polyfills.js';
import './quiet.js';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { StateMachine } from 'aws-local-stepfunctions';
import { type CheckGroup, makeCheckHandler } from '../lambdas/aws/checks/groups.js';
import { resolveNode } from '../lambdas/aws/checks/node-context.js';
import { openIncidentKey } from '../lambdas/aws/incident-table.js';
import { runRemedy } from '../lambdas/aws/remedy/service.js';
import { actGate, actGateInputSchema } from '../lambdas/aws/workflow/act-gate.js';
import { requestApproval } from '../lambdas/aws/workflow/approval.js';
import { handleApprovalHttp } from '../lambdas/aws/workflow/approval-page.js';
import { decideIncident } from '../lambdas/aws/workflow/decide.js';
import { openIncident } from '../lambdas/aws/workflow/open-incident.js';
import { summarizeIncident } from '../lambdas/aws/workflow/summarize.js';
import { verifyRepair } from '../lambdas/aws/workflow/verify.js';
import { incidentInputSchema, parseWorkflowConfig, type WorkflowConfig } from '../lambdas/core/workflow-config.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { LocalDynamo, type LocalTable, tableSchema } from './dynamo.js';
import { asRole } from './guard.js';
import { AccessDeniedError, type AwsRequest, type Decision, type PolicyDocument, TemplateAuthorizer } from './iam.js';
import { type LocalKubernetes, unreachableCluster } from './kubernetes.js';
import {
  checkExecutionInput,
  checkExecutionName,
  checkLambdaPayload,
  checkPublish,
  checkStatePayload,
} from './limits.js';
import type { Faults } from './mock-account.js';
import { documentsOf, type LocalNodeBehaviour, LocalRunCommand } from './ssm-runtime.js';
import { collectStates, StackRoles } from './stack-roles.js';
import { injectTaskFaults, type TaskFaults } from './task-faults.js';
import { ACCOUNT, idsOfType, REGION, type ResolvedTemplate, refOf, synthesizedTemplate } from './template.js';
import { topicKeyRequests, workflowClients } from './workflow-clients.js';

export type { LocalNodeBehaviour, NodeCommandAnswer } from './ssm-runtime.js';

/** The incident state machine definition exactly as CDK synthesizes it, intrinsics resolved. */
export function synthesizedDefinition(config?: unknown): Record<string, unknown> {
  return definitionOf(synthesizedTemplate(config));
}

/** The state machine definition of a resolved template. */
export function definitionOf(template: ResolvedTemplate): Record<string, unknown> {
  const [id] = idsOfType(template, 'AWS::StepFunctions::StateMachine');
  if (!id) throw new Error('no state machine in the template');
  return JSON.parse(String(template.Resources[id].Properties?.DefinitionString)) as Record<string, unknown>;
}

/** The workflow configuration the template hands its functions (WORKFLOW_CONFIG). */
export function workflowConfigOf(template: ResolvedTemplate): WorkflowConfig {
  const raw = Object.values(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((r) => (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables)
    .find((v) => v?.WORKFLOW_CONFIG)?.WORKFLOW_CONFIG;
  if (!raw) throw new Error('no function carries WORKFLOW_CONFIG');
  return parseWorkflowConfig(raw);
}

/**
 * Loads what the first run would otherwise pay for inside a test's time budget: the synthesized
 * template, the IAM data the simulator reads, the dynalite server.
 */
export async function warmUpRuntime(template: ResolvedTemplate = synthesizedTemplate()): Promise<void> {
  const authz = new TemplateAuthorizer(template);
  const roles = new StackRoles(template, definitionOf(template));
  await authz.deniedBecause(roles.stateMachineRole(), {
    action: 'lambda:InvokeFunction',
    resource: roles.functionOfState('Open incident'),
  });
  await freshIncidentTable(template);
}

/** An empty incident table (dynalite) with the template's name and key schema. */
export async function freshIncidentTable(template: ResolvedTemplate = synthesizedTemplate()): Promise<LocalTable> {
  const [id] = [...idsOfType(template, 'AWS::DynamoDB::GlobalTable'), ...idsOfType(template, 'AWS::DynamoDB::Table')];
  if (!id) throw new Error('no DynamoDB table in the template');
  const dynamo = await LocalDynamo.get();
  return dynamo.freshTable(tableSchema(template.Resources[id], refOf(template, id)));
}

export interface RunOptions {
  readonly account: AccountSnapshot;
  readonly faults?: Faults;
  readonly node: LocalNodeBehaviour;
  readonly modes?: Partial<WorkflowConfig['modes']>;
  /** Per class: dry-run, approve or auto for its account remedy (over the template's). */
  readonly remedies?: WorkflowConfig['remedies'];
  readonly limits?: Partial<WorkflowConfig['limits']>;
  readonly killSwitch?: 'on' | 'off' | 'unreadable';
  /** Sandbox image repositories trusted beyond the EKS ones (a local registry standing in for ECR). */
  readonly trustedSandboxImages?: readonly string[];
  readonly approval?: 'approve' | 'reject' | 'timeout';
  /** The kill switch an operator sets while an approval request waits (before the approver answers). */
  readonly killSwitchDuringApproval?: 'on' | 'unreadable';
  /** The answer to the drain after a failed restart (default: `approval`), and a kill switch set meanwhile. */
  readonly drainApproval?: 'approve' | 'reject' | 'timeout';
  readonly killSwitchDuringDrainApproval?: 'on' | 'unreadable';
  /** Service faults per Task state (throttling, 5xx …), raised under Step Functions' error names. */
  readonly taskFaults?: TaskFaults;
  /** The incident table (default: a fresh one). */
  readonly table?: LocalTable;
  /** Log lines keep arriving after the repair (lastSeen moves). */
  readonly newLinesAfterRepair?: boolean;
  readonly now?: number;
  /** The synthesized, resolved template (default: the project app with one cluster). */
  readonly template?: ResolvedTemplate;
  /** The state machine definition (default: the template's). */
  readonly definition?: Record<string, unknown>;
  /** The cluster's Kubernetes API (default: a cluster that does not accept pod-doctor's token). */
  readonly kubernetes?: LocalKubernetes;
}

export interface RunResult {
  readonly status: 'SUCCEEDED' | 'FAILED';
  readonly output: Record<string, unknown>;
  readonly error?: { name: string; cause?: string };
  readonly states: string[];
  /** States that failed, with error and cause (caught or not). */
  readonly failures: string[];
  readonly transitions: number;
  readonly sns: { subject?: string; message?: string }[];
  readonly commands: { document: string; parameters: Record<string, string[]> }[];
  readonly evidence: Map<string, string>;
  readonly table: LocalTable;
  /** Every authorisation the run took (role, action, resource, allowed), in order. */
  readonly decisions: readonly Decision[];
}

export const DOCUMENTS = {
  probeNode: 'pod-doctor-probeNode',
  repairPauseImage: 'pod-doctor-repairPauseImage',
  collectLogs: 'pod-doctor-collectLogs',
  restartRuntime: 'pod-doctor-restartRuntime',
};

/** The ARN of the template's state machine. */
function stateMachineArn(template: ResolvedTemplate): string {
  const [id] = idsOfType(template, 'AWS::StepFunctions::StateMachine');
  return refOf(template, id);
}

/** The IAM role of an instance and its identity policies, as the recorded account holds them. */
function nodeRole(account: AccountSnapshot, instanceId: string): { arn: string; identity: PolicyDocument[] } {
  const instance = account.instances.find((x) => x.InstanceId === instanceId);
  const profile = account.instanceProfiles.find((p) => p.Arn === instance?.IamInstanceProfile?.Arn);
  const role = profile?.Roles?.[0];
  const held = account.roles[role?.RoleName ?? ''];
  const identity = [
    ...(held?.attached ?? []).map((arn) => account.managedPolicies[arn]),
    ...Object.values(held?.inline ?? {}),
  ].filter(Boolean) as PolicyDocument[];
  return { arn: role?.Arn ?? `arn:aws:iam::${ACCOUNT}:role/unknown`, identity };
}

/** A denial inside a Task integration, named as Step Functions reports it (`SNS.…`, `Ssm.…`, `Lambda.…`). */
function taskError(prefix: string, e: unknown, as?: string): Error {
  if (!(e instanceof AccessDeniedError) && !(e as { $fault?: string }).$fault) return e as Error;
  const err = e as Error;
  return Object.assign(new Error(err.message), { name: `${prefix}.${as ?? err.name}` });
}

type Handler = (input: never) => unknown;

/**
 * Runs the synthesized state machine locally (aws-local-stepfunctions) with every Task state bound
 * to the real handler code. Every Task and every AWS call a function makes is authorised against
 * the template (the state machine role, each function's role, resource policies) and service
 * limits apply; AWS APIs answer from a recorded account, DynamoDB from dynalite, SSM from the
 * given node behaviour.
 */
export async function runWorkflow(incident: Record<string, unknown>, o: RunOptions): Promise<RunResult> {
  const now = o.now ?? Date.parse('2026-11-29T10:05:00Z');
  const clock = { t: now };
  const tick = () => (clock.t += 1000);
  const template = o.template ?? synthesizedTemplate();
  const definition = o.definition ?? definitionOf(template);
  const synthesized = workflowConfigOf(template);
  const config: WorkflowConfig = {
    ...synthesized,
    modes: { ...synthesized.modes, ...o.modes },
    remedies: { ...synthesized.remedies, ...o.remedies },
    limits: { ...synthesized.limits, ...o.limits },
    trustedSandboxImages: o.trustedSandboxImages ? [...o.trustedSandboxImages] : synthesized.trustedSandboxImages,
  };
  const table = o.table ?? (await freshIncidentTable(template));
  const authz = new TemplateAuthorizer(template);
  const roles = new StackRoles(template, definition);
  const smRole = roles.stateMachineRole();
  authz.taskTokenOwner = stateMachineArn(template);
  const c = workflowClients({ ...o, template, authz, table, killSwitchName: config.killSwitchParameterName });
  const metrics = new Metrics({ namespace: 'PodDoctor', serviceName: 'pod-doctor' });
  const ssmRun = new LocalRunCommand(documentsOf(template), o.node, async (i, answer) => {
    const bucket = i.Parameters?.Bucket?.[0];
    if (i.DocumentName !== config.documents.collectLogs || answer.status !== 'Success' || !bucket) return answer;
    // The node uploads its bundle with its own role: the bucket policy must let it.
    const node = nodeRole(o.account, i.InstanceIds[0]);
    const key = `${i.Parameters?.Prefix?.[0] ?? 'incidents'}/logs.tar.gz`;
    const why = await authz.deniedBecause(
      node.arn,
      { action: 's3:PutObject', resource: `arn:aws:s3:::${bucket}/${key}` },
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
  /** The state machine role makes the request, or the Task fails as Step Functions reports it. */
  const asStateMachine = async (prefix: string, requests: AwsRequest[], as?: string) => {
    try {
      for (const r of requests) await authz.authorize(smRole, r);
    } catch (e) {
      throw taskError(prefix, e, as);
    }
  };
  /** A Lambda Task: invoke permission, payload limits, then the handler as the function's role. */
  const lambda =
    (state: string, f: Handler, bare = false) =>
    async (input: unknown) => {
      const fn = roles.functionOfState(state);
      await asStateMachine('Lambda', [{ action: 'lambda:InvokeFunction', resource: fn }], 'AWSLambdaException');
      const payload = bare ? input : (input as { Payload: unknown }).Payload;
      checkLambdaPayload(payload, 'RequestResponse');
      const out = await asRole(roles.roleOf(fn), () => f(payload as never));
      checkStatePayload(state, out);
      return bare ? out : { Payload: out, StatusCode: 200, ExecutedVersion: '$LATEST' };
    };
  const check = (state: string, g: CheckGroup) =>
    lambda(state, (i) => makeCheckHandler(g, c.aws, () => new Date(clock.t))(i));
  // The remedy function's calls go through the same guarded clients: its narrow grants decide.
  const remedyDeps = { clients: c.aws, config, now: () => clock.t };
  const secretOf = async (fn: string) => {
    const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const r = await c.secrets.send(new GetSecretValueCommand({ SecretId: roles.envOf(fn).APPROVAL_SECRET_ARN }));
    return String(r.SecretString);
  };
  const approve = (state: string) => async (params: { FunctionName: string; Payload: Record<string, unknown> }) => {
    const fn = roles.functionOfState(state);
    await asStateMachine('Lambda', [{ action: 'lambda:InvokeFunction', resource: fn }], 'AWSLambdaException');
    const drain = state === 'Request drain approval';
    const answer = drain ? (o.drainApproval ?? o.approval) : o.approval;
    const killSwitch = drain ? o.killSwitchDuringDrainApproval : o.killSwitchDuringApproval;
    if (answer === 'timeout' || answer === undefined)
      throw Object.assign(new Error('States.Timeout'), { name: 'States.Timeout' });
    const env = roles.envOf(fn);
    await asRole(roles.roleOf(fn), async () =>
      requestApproval(params.Payload as never, {
        ddb: c.ddb,
        tableName: config.tableName,
        secret: await secretOf(fn),
        sns: c.sns,
        topicArn: env.TOPIC_ARN,
        callbackUrl: env.CALLBACK_URL,
        timeoutMinutes: Number(env.APPROVAL_TIMEOUT_MINUTES ?? 60),
        now: () => clock.t,
      }),
    );
    if (killSwitch) c.setKillSwitch(killSwitch);
    // A mail scanner fetches the link first (it must change nothing); then the approver opens the
    // page and presses a button, which POSTs the page's form: unsigned requests to the function URL.
    const link = /Review and decide: +(\S+)/.exec(c.published.at(-1)?.message ?? '')?.[1];
    const callback = roles.functionUrl().fn;
    const pageDeps = async () => ({
      ddb: c.ddb,
      tableName: config.tableName,
      secret: await secretOf(callback),
      sfn: c.sfn,
      now: () => clock.t,
    });
    const http = async (req: Parameters<typeof handleApprovalHttp>[0]) => {
      await authz.authorize('anonymous', {
        action: 'lambda:InvokeFunctionUrl',
        resource: callback,
        context: { 'lambda:FunctionUrlAuthType': 'NONE' },
      });
      return asRole(roles.roleOf(callback), async () => handleApprovalHttp(req, await pageDeps()));
    };
    const query = Object.fromEntries(new URL(String(link)).searchParams.entries());
    const get = () => http({ method: 'GET', query, sourceIp: '198.51.100.7', userAgent: 'scanner' });
    await get();
    const form = new URLSearchParams(
      [...(await get()).body.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]] as [string, string]),
    );
    form.set('decision', answer);
    const r = await http({
      method: 'POST',
      query: {},
      body: form.toString(),
      sourceIp: '203.0.113.10',
      userAgent: 'Mozilla/5.0 (approver)',
    });
    if (r.statusCode !== 200) throw new Error(`approval callback answered ${r.statusCode}: ${r.body}`);
    return JSON.parse(c.taskOutputs.at(-1) ?? '{}') as unknown;
  };
  /** The sns:publish integration: publish permission, the topic key, SNS's own limits. */
  const notify = (id: string) => async (i: { TopicArn: string; Subject?: string; Message: string }) => {
    await asStateMachine('SNS', [
      { action: 'sns:Publish', resource: i.TopicArn, deniedAs: 'AuthorizationErrorException' },
      ...topicKeyRequests(template, i.TopicArn),
    ]);
    try {
      checkPublish(i);
    } catch (e) {
      throw taskError('SNS', e);
    }
    c.published.push({ subject: i.Subject, message: i.Message });
    return { MessageId: id };
  };
  const instanceTags = (id: string) =>
    Object.fromEntries(
      (o.account.instances.find((x) => x.InstanceId === id)?.Tags ?? []).flatMap((t) => [
        [`ssm:resourceTag/${t.Key}`, String(t.Value)],
        [`aws:ResourceTag/${t.Key}`, String(t.Value)],
      ]),
    );
  const sendCommand = async (i: {
    DocumentName: string;
    InstanceIds: string[];
    Parameters: Record<string, string[]>;
  }) => {
    // Step Functions reports an AccessDenied of the aws-sdk integration as Ssm.SsmException.
    await asStateMachine(
      'Ssm',
      [
        { action: 'ssm:SendCommand', resource: `arn:aws:ssm:${REGION}:${ACCOUNT}:document/${i.DocumentName}` },
        ...i.InstanceIds.map((id) => ({
          action: 'ssm:SendCommand',
          resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${id}`,
          context: instanceTags(id),
        })),
      ],
      'SsmException',
    );
    const out = await ssmRun.send(i);
    if (i.DocumentName === config.documents.repairPauseImage && o.newLinesAfterRepair) {
      const row = await table.get(openIncidentKey(String(incident.incidentKey)));
      if (row) await table.put({ ...row, lastSeen: clock.t + 10 * 60_000 });
    }
    return out;
  };
  const getInvocation = async (i: { CommandId: string; InstanceId: string }) => {
    await asStateMachine('Ssm', [{ action: 'ssm:GetCommandInvocation', resource: '*' }]);
    return ssmRun.get(i);
  };
  const summarize = (state: string) =>
    lambda(state, (i) => summarizeIncident(i, { ddb: c.ddb, s3: c.s3, config, metrics, now: tick }));
  const handlers: Record<string, Handler> = {
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
    'Request drain approval': approve('Request drain approval') as never,
    'Drain node': lambda('Drain node', (i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Request approval': approve('Request approval') as never,
    'Inspect cluster': lambda('Inspect cluster', (i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Watch pods start': lambda('Watch pods start', (i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Prepare cluster remedy': lambda('Prepare cluster remedy', (i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Apply cluster remedy': lambda('Apply cluster remedy', (i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Request remedy approval': approve('Request remedy approval') as never,
    'Prepare remedy': lambda('Prepare remedy', (i) => runRemedy(i, remedyDeps)),
    'Apply remedy': lambda('Apply remedy', (i) => runRemedy(i, remedyDeps)),
    'Check repair': lambda('Check repair', (i) => verifyRepair(i, { ddb: c.ddb, tableName: config.tableName })),
    'Check restart': lambda('Check restart', (i) => verifyRepair(i, { ddb: c.ddb, tableName: config.tableName })),
    Summarize: summarize('Summarize'),
    'Record failure': summarize('Record failure'),
    Notify: notify('n') as never,
    'Notify failure': notify('f') as never,
    'Notify bare failure': notify('b') as never,
  };
  for (const prefix of ['Probe', 'Act', 'Recheck probe', 'Verify probe', 'Drain recheck']) {
    handlers[`${prefix}: send command`] = sendCommand as never;
    handlers[`${prefix}: get result`] = getInvocation as never;
  }
  injectTaskFaults(handlers as never, o.taskFaults);
  const name = String(incident.incidentId);
  checkExecutionName(name);
  checkExecutionInput(JSON.stringify(incident));
  const execution = new StateMachine(definition as never, { validationOptions: { checkArn: false } }).run(
    incident as never,
    {
      overrides: {
        taskResourceLocalHandlers: handlers as never,
        waitTimeOverrides: Object.fromEntries(
          collectStates(definition)
            .filter(([, s]) => s.Type === 'Wait')
            .map(([n]) => [n, 0]),
        ),
        retryIntervalOverrides: Object.fromEntries(
          collectStates(definition)
            .filter(([, s]) => s.Retry)
            .map(([n]) => [n, 0]),
        ),
      },
      context: {
        Execution: {
          Id: `arn:aws:states:${REGION}:${ACCOUNT}:execution:PodDoctorWorkflow:${name}`,
          Name: name,
          StartTime: new Date(now).toISOString(),
          Input: incident as never,
        },
        State: { EnteredTime: new Date(now).toISOString(), Name: 'x', RetryCount: 0 },
        Task: { Token: 'AQCEAAAAKgAAAAMAAAAAAAAAAT0task-token-for-tests' },
      },
    },
  );
  const states: string[] = [];
  const failures: string[] = [];
  const collect = (async () => {
    for await (const ev of execution.eventLogs as AsyncGenerator<{
      type: string;
      state?: { name: string };
      Error?: string;
      Cause?: string;
    }>) {
      if (ev.type === 'StateEntered' && ev.state) states.push(ev.state.name);
      if (ev.type === 'StateFailed' && ev.state)
        failures.push(`${ev.state.name}: ${ev.Error}: ${String(ev.Cause).slice(0, 300)}`);
    }
  })();
  let status: RunResult['status'] = 'SUCCEEDED';
  let output: Record<string, unknown> = {};
  let error: RunResult['error'];
  try {
    output = (await execution.result) as Record<string, unknown>;
  } catch (e) {
    status = 'FAILED';
    error = { name: (e as Error).name, cause: (e as Error).message };
  }
  await collect;
  c.aws.restore();
  return {
    status,
    output,
    error,
    states,
    failures,
    transitions: states.length,
    sns: c.published,
    commands: ssmRun.commands,
    evidence: c.evidence,
    table,
    decisions: authz.decisions,
  };
}
