import './polyfills.js';
import './quiet.js';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { StateMachine } from 'aws-local-stepfunctions';
import { mockClient } from 'aws-sdk-client-mock';
import type { CheckGroup } from '../lambdas/aws/checks/groups.js';
import { makeCheckHandler } from '../lambdas/aws/checks/handler-kit.js';
import { resolveNode } from '../lambdas/aws/checks/node-context.js';
import { openIncidentKey } from '../lambdas/aws/incident-table.js';
import { runRemedy } from '../lambdas/aws/remedy/service.js';
import { requestApproval } from '../lambdas/aws/workflow/approval.js';
import { handleApprovalHttp } from '../lambdas/aws/workflow/approval-page.js';
import { decideIncident } from '../lambdas/aws/workflow/decide.js';
import { openIncident } from '../lambdas/aws/workflow/open-incident.js';
import { summarizeIncident } from '../lambdas/aws/workflow/summarize.js';
import { verifyRepair } from '../lambdas/aws/workflow/verify.js';
import { clusterOfTags } from '../lambdas/core/node-tags.js';
import { incidentInputSchema, parseWorkflowConfig, type WorkflowConfig } from '../lambdas/core/workflow-config.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { LocalDynamo, type LocalTable, tableSchema } from './dynamo.js';
import { type LocalKubernetes, unreachableCluster } from './kubernetes.js';
import { type Faults, mockAccount } from './mock-account.js';
import { ACCOUNT, idsOfType, REGION, type ResolvedTemplate, refOf, synthesizedTemplate } from './template.js';

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

/** An empty incident table (dynalite) with the template's name and key schema. */
export async function freshIncidentTable(template: ResolvedTemplate = synthesizedTemplate()): Promise<LocalTable> {
  const [id] = [...idsOfType(template, 'AWS::DynamoDB::GlobalTable'), ...idsOfType(template, 'AWS::DynamoDB::Table')];
  if (!id) throw new Error('no DynamoDB table in the template');
  const dynamo = await LocalDynamo.get();
  return dynamo.freshTable(tableSchema(template.Resources[id], refOf(template, id)));
}

/** What a node answers to one SSM document run. */
export interface NodeCommandAnswer {
  /** Final GetCommandInvocation status (Success, Failed, Undeliverable ...). */
  readonly status: string;
  readonly stdout: string;
  readonly stderr?: string;
  /** Polls answering InProgress before the final status. */
  readonly pollsBeforeDone?: number;
}

/** A node as SSM sees it: managed or not, and how it answers each document. */
export interface LocalNodeBehaviour {
  readonly managed: boolean;
  /** Called for each SendCommand; `n` counts runs of that document. */
  run(
    document: string,
    parameters: Record<string, string[]>,
    n: number,
  ): NodeCommandAnswer | Promise<NodeCommandAnswer>;
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
  /** State name → error thrown by its handler (a crash). */
  readonly crash?: Record<string, Error>;
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
}

export const DOCUMENTS = {
  probeNode: 'pod-doctor-probeNode',
  repairPauseImage: 'pod-doctor-repairPauseImage',
  collectLogs: 'pod-doctor-collectLogs',
  restartRuntime: 'pod-doctor-restartRuntime',
};

/**
 * Runs the synthesized state machine locally (aws-local-stepfunctions) with every Task state bound
 * to the real handler code; AWS APIs answer from a recorded account, DynamoDB from dynalite, SSM from
 * the given node behaviour.
 */
export async function runWorkflow(incident: Record<string, unknown>, o: RunOptions): Promise<RunResult> {
  const now = o.now ?? Date.parse('2026-11-29T10:05:00Z');
  const clock = { t: now };
  const tick = () => (clock.t += 1000);
  const template = o.template ?? synthesizedTemplate();
  const synthesized = workflowConfigOf(template);
  const config: WorkflowConfig = {
    ...synthesized,
    modes: { ...synthesized.modes, ...o.modes },
    remedies: { ...synthesized.remedies, ...o.remedies },
    limits: { ...synthesized.limits, ...o.limits },
    trustedSandboxImages: o.trustedSandboxImages ? [...o.trustedSandboxImages] : synthesized.trustedSandboxImages,
  };
  const table = o.table ?? (await freshIncidentTable(template));
  const aws = mockAccount(o.account, o.faults);
  const ssm = new SSMClient({ region: REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const ssmMock = mockClient(ssm);
  if (o.killSwitch === 'unreadable')
    ssmMock.on(GetParameterCommand).rejects(
      Object.assign(new Error('User is not authorized to perform: ssm:GetParameter'), {
        name: 'AccessDeniedException',
      }),
    );
  else
    ssmMock.on(GetParameterCommand).resolves({
      Parameter: { Name: config.killSwitchParameterName, Value: o.killSwitch ?? 'off', Type: 'String', Version: 1 },
      $metadata: {},
    });
  const sns: { subject?: string; message?: string }[] = [];
  const snsClient = new SNSClient({ region: REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  mockClient(snsClient)
    .on(PublishCommand)
    .callsFake((i) => {
      sns.push({ subject: i.Subject, message: i.Message });
      return { MessageId: `m-${sns.length}` };
    });
  const evidence = new Map<string, string>();
  const s3 = new S3Client({ region: REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  mockClient(s3)
    .on(PutObjectCommand)
    .callsFake((i) => {
      evidence.set(String(i.Key), String(i.Body));
      return { ETag: '"e"' };
    });
  const taskOutputs: string[] = [];
  const sfn = new SFNClient({ region: REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  mockClient(sfn)
    .on(SendTaskSuccessCommand)
    .callsFake((i) => {
      taskOutputs.push(String(i.output));
      return {};
    });
  const metrics = new Metrics({ namespace: 'PodDoctor', serviceName: 'pod-doctor' });
  const secret = 'test-approval-key-0123456789abcdef';
  const commands: RunResult['commands'] = [];
  const runs = new Map<string, number>();
  const invocations = new Map<string, { answer: NodeCommandAnswer; polls: number }>();
  // The optimized Lambda integration sends {FunctionName, Payload} and answers {Payload, StatusCode, ...}.
  const lambda = (f: (input: never) => unknown) => async (input: unknown) => ({
    Payload: await f((input as { Payload: never }).Payload),
    StatusCode: 200,
    ExecutedVersion: '$LATEST',
  });
  const crashable =
    <T extends (input: never) => unknown>(name: string, f: T) =>
    (input: unknown) => {
      const err = o.crash?.[name];
      if (err) throw err;
      return (f as unknown as (i: unknown) => unknown)(input);
    };
  const check = (g: CheckGroup) => lambda((i) => makeCheckHandler(g, aws, () => new Date(clock.t))(i));
  const sendCommand = async (input: {
    DocumentName: string;
    InstanceIds: string[];
    Parameters: Record<string, string[]>;
  }) => {
    if (!o.node.managed) {
      throw Object.assign(
        new Error(`Instances [[${input.InstanceIds[0]}]] not in a valid state for account ${ACCOUNT}`),
        { name: 'Ssm.InvalidInstanceIdException' },
      );
    }
    // The grant's tag conditions (NodeCommands.grantSendCommand): a node whose tags name no
    // configured cluster is denied, as IAM denies it (Step Functions reports Ssm.SsmException).
    const target = o.account.instances.find((x) => x.InstanceId === input.InstanceIds[0]);
    const owner = clusterOfTags(target?.Tags);
    if (target && !config.clusters.some((c) => c.name === owner)) {
      throw Object.assign(
        new Error(
          `User: arn:aws:sts::${ACCOUNT}:assumed-role/PodDoctorWorkflowRole/pod-doctor is not authorized to perform: ssm:SendCommand on resource: arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${target.InstanceId} because no identity-based policy allows the ssm:SendCommand action (Service: Ssm, Status Code: 400, Error Code: AccessDeniedException)`,
        ),
        { name: 'Ssm.SsmException' },
      );
    }
    commands.push({ document: input.DocumentName, parameters: input.Parameters });
    const n = (runs.get(input.DocumentName) ?? 0) + 1;
    runs.set(input.DocumentName, n);
    const answer = await o.node.run(input.DocumentName, input.Parameters, n);
    const id = `${String(commands.length).padStart(8, '0')}-aaaa-bbbb-cccc-0123456789ab`;
    invocations.set(id, { answer, polls: 0 });
    if (input.DocumentName === DOCUMENTS.repairPauseImage && o.newLinesAfterRepair) {
      const key = openIncidentKey(String(incident.incidentKey));
      const row = await table.get(key);
      if (row) await table.put({ ...row, lastSeen: clock.t + 10 * 60_000 });
    }
    return { Command: { CommandId: id, DocumentName: input.DocumentName, Status: 'Pending' } };
  };
  const getInvocation = (input: { CommandId: string; InstanceId: string }) => {
    const inv = invocations.get(input.CommandId);
    if (!inv)
      throw Object.assign(new Error('invocation does not exist'), { name: 'Ssm.InvocationDoesNotExistException' });
    inv.polls++;
    const done = inv.polls > (inv.answer.pollsBeforeDone ?? 0);
    const status = done ? inv.answer.status : 'InProgress';
    return {
      CommandId: input.CommandId,
      InstanceId: input.InstanceId,
      Status: status,
      StatusDetails: status,
      ResponseCode: done ? (status === 'Success' ? 0 : 1) : -1,
      StandardOutputContent: done ? inv.answer.stdout : '',
      StandardErrorContent: done ? (inv.answer.stderr ?? '') : '',
    };
  };
  const approve = async (params: { Payload: Record<string, unknown> }) => {
    const input = params.Payload;
    if (o.approval === 'timeout' || o.approval === undefined)
      throw Object.assign(new Error('States.Timeout'), { name: 'States.Timeout' });
    await requestApproval(input as never, {
      ddb: table.client,
      tableName: config.tableName,
      secret,
      sns: snsClient,
      topicArn: 'arn:aws:sns:eu-west-1:111122223333:topic',
      callbackUrl: 'https://abc.lambda-url.eu-west-1.on.aws/',
      timeoutMinutes: 60,
      now: () => clock.t,
    });
    // A mail scanner fetches the link first (it must change nothing); then the approver opens the
    // page and presses a button, which POSTs the page's form.
    const link = /Review and decide: +(\S+)/.exec(sns[sns.length - 1].message ?? '')?.[1];
    const pageDeps = { ddb: table.client, tableName: config.tableName, secret, sfn, now: () => clock.t };
    const get = () =>
      handleApprovalHttp(
        {
          method: 'GET',
          query: Object.fromEntries(new URL(String(link)).searchParams.entries()),
          sourceIp: '198.51.100.7',
          userAgent: 'scanner',
        },
        pageDeps,
      );
    await get();
    const form = new URLSearchParams(
      [...(await get()).body.matchAll(/name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]] as [string, string]),
    );
    form.set('decision', o.approval);
    const r = await handleApprovalHttp(
      {
        method: 'POST',
        query: {},
        body: form.toString(),
        sourceIp: '203.0.113.10',
        userAgent: 'Mozilla/5.0 (approver)',
      },
      pageDeps,
    );
    if (r.statusCode !== 200) throw new Error(`approval callback answered ${r.statusCode}: ${r.body}`);
    return JSON.parse(taskOutputs[taskOutputs.length - 1]) as unknown;
  };
  const summarize = lambda((i) => summarizeIncident(i, { ddb: table.client, s3, config, metrics, now: tick }));
  const handlers: Record<string, (input: never) => unknown> = {
    'Open incident': lambda(
      crashable('Open incident', (i: { incident: unknown; executionId: string }) =>
        openIncident(incidentInputSchema.parse(i.incident), i.executionId, {
          ddb: table.client,
          ssm,
          config,
          now: tick,
        }),
      ),
    ),
    'Resolve node': crashable('Resolve node', (i: { node: string; cluster: string }) =>
      resolveNode(aws.ec2, aws.iam, i.node, i.cluster),
    ),
    'Check IAM': crashable('Check IAM', check('iam')),
    'Check ECR': crashable('Check ECR', check('ecr')),
    'Check network': crashable('Check network', check('network')),
    'Check EKS': crashable('Check EKS', check('eks')),
    'Check recent changes': crashable('Check recent changes', check('changes')),
    Decide: lambda(crashable('Decide', (i) => decideIncident(i, { eks: aws.eks, config, now: () => clock.t }))),
    'Request approval': approve as never,
    'Inspect cluster': lambda((i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Watch pods start': lambda((i) => (o.kubernetes ?? unreachableCluster)(i)),
    'Request remedy approval': approve as never,
    'Prepare remedy': lambda((i) => runRemedy(i, { clients: aws, config, now: () => clock.t })),
    'Apply remedy': lambda(
      crashable('Apply remedy', (i) => runRemedy(i, { clients: aws, config, now: () => clock.t })),
    ),
    'Check repair': lambda((i) => verifyRepair(i, { ddb: table.client, tableName: config.tableName })),
    Summarize: summarize,
    'Record failure': summarize,
    Notify: (i: { Subject: string; Message: string }) =>
      sns.push({ subject: i.Subject, message: i.Message }) && { MessageId: 'n' },
    'Notify failure': (i: { Subject: string; Message: string }) =>
      sns.push({ subject: i.Subject, message: i.Message }) && { MessageId: 'f' },
    'Notify bare failure': (i: { Subject: string; Message: string }) =>
      sns.push({ subject: i.Subject, message: i.Message }) && { MessageId: 'b' },
  };
  for (const prefix of ['Probe', 'Act', 'Verify probe']) {
    handlers[`${prefix}: send command`] = crashable(`${prefix}: send command`, sendCommand) as never;
    handlers[`${prefix}: get result`] = getInvocation as never;
  }
  const definition = o.definition ?? definitionOf(template);
  const waits = Object.fromEntries(
    collectStates(definition)
      .filter(([, s]) => s.Type === 'Wait')
      .map(([n]) => [n, 0]),
  );
  const sm = new StateMachine(definition as never, { validationOptions: { checkArn: false } });
  const executionArn = `arn:aws:states:${REGION}:${ACCOUNT}:execution:PodDoctorWorkflow:${String(incident.incidentId)}`;
  const execution = sm.run(incident as never, {
    overrides: {
      taskResourceLocalHandlers: handlers as never,
      waitTimeOverrides: waits,
      retryIntervalOverrides: Object.fromEntries(
        collectStates(definition)
          .filter(([, s]) => s.Retry)
          .map(([n]) => [n, 0]),
      ),
    },
    context: {
      Execution: {
        Id: executionArn,
        Name: String(incident.incidentId),
        StartTime: new Date(now).toISOString(),
        Input: incident as never,
      },
      State: { EnteredTime: new Date(now).toISOString(), Name: 'x', RetryCount: 0 },
      Task: { Token: 'AQCEAAAAKgAAAAMAAAAAAAAAAT0task-token-for-tests' },
    },
  });
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
  aws.restore();
  return { status, output, error, states, failures, transitions: states.length, sns, commands, evidence, table };
}

function collectStates(def: Record<string, unknown>): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  const walk = (states: Record<string, Record<string, unknown>>) => {
    for (const [name, s] of Object.entries(states)) {
      out.push([name, s]);
      for (const b of (s.Branches as { States: Record<string, Record<string, unknown>> }[] | undefined) ?? [])
        walk(b.States);
    }
  };
  walk(def.States as Record<string, Record<string, unknown>>);
  return out;
}
