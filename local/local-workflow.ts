import './polyfills.js';
import './quiet.js';
import { StateMachine } from 'aws-local-stepfunctions';
import { openIncidentKey } from '../lambdas/core/contract/incident-table.js';
import type { WorkflowConfig } from '../lambdas/core/workflow/workflow-config.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { deployConfig, loadConfigAs } from './config-store.js';
import { LocalDynamo, type LocalTable, tableSchema } from './dynamo.js';
import { type Decision, TemplateAuthorizer } from './iam.js';
import type { LocalKubernetes } from './kubernetes.js';
import { checkExecutionInput, checkExecutionName } from './limits.js';
import type { Faults } from './mock-account.js';
import type { LocalNodeBehaviour } from './ssm-runtime.js';
import { collectStates, StackRoles } from './stack-roles.js';
import { injectTaskFaults, type TaskFaults } from './task-faults.js';
import { ACCOUNT, idsOfType, REGION, type ResolvedTemplate, refOf, synthesizedTemplate } from './template.js';
import { type SsmFaults, workflowClients } from './workflow-clients.js';
import { type Handler, nodeCommandRuntime, taskHandlers } from './workflow-tasks.js';

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

/**
 * The configuration the workflow's functions read, as deployed: the template's Config resource
 * writes it to the table (as the writer's role), then it is read as the Open incident function's
 * role through the functions' own loader.
 */
export async function deployedWorkflowConfig(
  template: ResolvedTemplate,
  table: LocalTable,
  authz: TemplateAuthorizer,
  roles: StackRoles,
): Promise<WorkflowConfig> {
  const at = await deployConfig(template, table, authz);
  return loadConfigAs(roles.roleOf(roles.functionOfState('Open incident')), at, table, authz);
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
  /** The approver's answer; `timeout`: not asked in time; `unanswered`: asked (row, e-mail), no answer before the deadline. */
  readonly approval?: 'approve' | 'reject' | 'timeout' | 'unanswered';
  /**
   * The answers to the approval requests in the order they are asked (then `approval` for the rest):
   * an approval covers one request and its diff, so a request asked again gets the next answer.
   */
  readonly approvals?: readonly ('approve' | 'reject' | 'unanswered')[];
  /** What someone changes while an approval request waits (before the approver answers). */
  readonly duringApproval?: () => void | Promise<void>;
  /** The kill switch an operator sets while an approval request waits (before the approver answers). */
  readonly killSwitchDuringApproval?: 'on' | 'unreadable';
  /** The answer to the drain after a failed restart (default: `approval`), and a kill switch set meanwhile. */
  readonly drainApproval?: 'approve' | 'reject' | 'timeout';
  readonly killSwitchDuringDrainApproval?: 'on' | 'unreadable';
  /** The answer to the eviction of pods that stay stuck after the repair (default: `approval`), and a kill switch set meanwhile. */
  readonly evictApproval?: 'approve' | 'reject' | 'timeout';
  readonly killSwitchDuringEvictApproval?: 'on' | 'unreadable';
  /** Service faults per Task state (throttling, 5xx …), raised under Step Functions' error names. */
  readonly taskFaults?: TaskFaults;
  /**
   * Run Command's status-change events: delivered through the template's rules (default), or lost
   * (the await times out at the command's budget; the door checks the command once).
   */
  readonly commandEvents?: 'delivered' | 'lost';
  /** Run Command faults inside the door's calls (SendCommand, GetCommandInvocation), under the SDK's error names. */
  readonly ssmFaults?: SsmFaults;
  /** The incident table (default: a fresh one). */
  readonly table?: LocalTable;
  /** Log lines keep arriving after the repair (lastSeen moves). */
  readonly newLinesAfterRepair?: boolean;
  /** The execution's name (a re-evaluation: `<incident>-e<n>`). @default the incident id */
  readonly executionName?: string;
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
  /** The execution history: each state entered, with the runtime's timestamp (epoch ms, wall clock). */
  readonly history: { readonly state: string; readonly at: number }[];
  /** The run's clock at the start (the incident's `now`: what its firstSeen is measured against). */
  readonly startedAt: number;
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
  const template = o.template ?? synthesizedTemplate();
  const definition = o.definition ?? definitionOf(template);
  const table = o.table ?? (await freshIncidentTable(template));
  const authz = new TemplateAuthorizer(template);
  const roles = new StackRoles(template, definition);
  const config = runConfig(await deployedWorkflowConfig(template, table, authz, roles), o);
  const stateMachineRole = roles.stateMachineRole();
  authz.taskTokenOwner = stateMachineArn(template);
  const ssm = nodeCommandRuntime(template, o, config, authz);
  const clients = workflowClients({
    ...o,
    commands: ssm,
    onSent: linesAfterRepair(o, config, table, incident, clock),
    template,
    authz,
    table,
    killSwitchName: config.killSwitchParameterName,
  });
  o.kubernetes?.bind(accessEntries(template));
  const tick = () => (clock.t += 1000);
  const ctx = {
    options: o,
    incident,
    template,
    config,
    table,
    authz,
    roles,
    stateMachineRole,
    clients,
    clock,
    tick,
    ssm,
  };
  const handlers = taskHandlers(ctx);
  injectTaskFaults(handlers as never, o.taskFaults);
  const run = await execute(definition, incident, handlers, { now, name: o.executionName });
  clients.aws.restore();
  return {
    ...run,
    startedAt: now,
    transitions: run.states.length,
    sns: clients.published,
    commands: ssm.commands,
    evidence: clients.evidence,
    table,
    decisions: authz.decisions,
  };
}

/** Log lines keep arriving after the repair (the run's `newLinesAfterRepair`): lastSeen moves past it. */
function linesAfterRepair(
  o: RunOptions,
  config: WorkflowConfig,
  table: LocalTable,
  incident: Record<string, unknown>,
  clock: { t: number },
) {
  return async (i: { DocumentName: string }) => {
    if (!o.newLinesAfterRepair || i.DocumentName !== config.documents.repairPauseImage) return;
    const row = await table.get(openIncidentKey(String(incident.incidentKey)));
    if (row) await table.put({ ...row, lastSeen: clock.t + 10 * 60_000 });
  };
}

/** The template's EKS access entries: each role and the Kubernetes groups its entry maps it to. */
export function accessEntries(template: ResolvedTemplate): Map<string, readonly string[]> {
  return new Map(
    idsOfType(template, 'AWS::EKS::AccessEntry').map((id) => {
      const p = template.Resources[id].Properties ?? {};
      return [String(p.PrincipalArn), (p.KubernetesGroups as string[] | undefined) ?? []] as const;
    }),
  );
}

/** The template's workflow configuration with the run's modes, remedy tiers, limits and trusted images over it. */
function runConfig(synthesized: WorkflowConfig, o: RunOptions): WorkflowConfig {
  return {
    ...synthesized,
    modes: { ...synthesized.modes, ...o.modes },
    remedies: { ...synthesized.remedies, ...o.remedies },
    limits: { ...synthesized.limits, ...o.limits },
    trustedSandboxImages: o.trustedSandboxImages ? [...o.trustedSandboxImages] : synthesized.trustedSandboxImages,
  };
}

type Execution = Pick<RunResult, 'status' | 'output' | 'error' | 'states' | 'failures' | 'history'>;

/** One execution within Step Functions' name and input limits: its result and the states it entered and failed. */
async function execute(
  definition: Record<string, unknown>,
  incident: Record<string, unknown>,
  handlers: Record<string, Handler>,
  at: { readonly now: number; readonly name?: string },
): Promise<Execution> {
  const { now } = at;
  const name = at.name ?? String(incident.incidentId);
  checkExecutionName(name);
  checkExecutionInput(JSON.stringify(incident));
  const execution = new StateMachine(definition as never, { validationOptions: { checkArn: false } }).run(
    incident as never,
    { overrides: localOverrides(definition, handlers), context: executionContext(name, incident, now) },
  );
  const states: string[] = [];
  const history: { state: string; at: number }[] = [];
  const failures: string[] = [];
  const collect = (async () => {
    for await (const ev of execution.eventLogs as AsyncGenerator<{
      type: string;
      timestamp?: number;
      state?: { name: string };
      Error?: string;
      Cause?: string;
    }>) {
      if (ev.type === 'StateEntered' && ev.state) {
        states.push(ev.state.name);
        history.push({ state: ev.state.name, at: ev.timestamp ?? Date.now() });
      }
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
  return { status, output, error, states, failures, history };
}

/** The Task handlers, and no waiting: every Wait state and every retry interval takes no time. */
function localOverrides(definition: Record<string, unknown>, handlers: Record<string, Handler>) {
  const zeroFor = (pick: (s: { Type?: string; Retry?: unknown }) => unknown) =>
    Object.fromEntries(
      collectStates(definition)
        .filter(([, s]) => pick(s))
        .map(([n]) => [n, 0]),
    );
  return {
    taskResourceLocalHandlers: handlers as never,
    waitTimeOverrides: zeroFor((s) => s.Type === 'Wait'),
    retryIntervalOverrides: zeroFor((s) => s.Retry),
  };
}

/** The context object of the execution: its ARN, name, start time and input, and the task token. */
function executionContext(name: string, incident: Record<string, unknown>, now: number) {
  return {
    Execution: {
      Id: `arn:aws:states:${REGION}:${ACCOUNT}:execution:PodDoctorWorkflow:${name}`,
      Name: name,
      StartTime: new Date(now).toISOString(),
      Input: incident as never,
    },
    State: { EnteredTime: new Date(now).toISOString(), Name: 'x', RetryCount: 0 },
    Task: { Token: 'AQCEAAAAKgAAAAMAAAAAAAAAAT0task-token-for-tests' },
  };
}
