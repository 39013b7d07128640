import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import {
  DefinitionBody,
  type IStateMachine,
  LogLevel,
  StateMachine,
  StateMachineType,
} from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { NODE_COMMANDS, type NodeCommandName } from '../../ssm/documents.js';
import type { PodDoctorConfig } from '../config.js';
import type { AccountChecks } from './account-checks.js';
import type { VpcPlacement, VpcReach } from './cluster-vpc.js';
import type { ConfigStore } from './config-store.js';
import { DoorFunction } from './door-function.js';
import { acknowledgeStateMachine, acknowledgeTopicKey } from './nag.js';
import type { NodeCommands } from './node-commands.js';
import { hasRemediationScope } from './remedy-grants.js';
import { TopicFromRule } from './topic-from-rule.js';
import { ApprovalEndpoint } from './workflow/approval-endpoint.js';
import { ChatApprovals } from './workflow/chat-approvals.js';
import { CommandCompletion } from './workflow/command-completion.js';
import { IncidentStateGraph } from './workflow/incident-state-graph.js';
import type { VpcRoute } from './workflow/routes.js';
import { WorkflowFunctions } from './workflow/workflow-functions.js';

/** Props of {@link IncidentWorkflow}. */
export interface IncidentWorkflowProps {
  /** Validated configuration (modes, limits, clusters). */
  readonly config: PodDoctorConfig;
  /** Where the workflow's functions read the deployment's configuration. */
  readonly configStore: ConfigStore;
  /** Incident history, locks and action bookkeeping. */
  readonly incidentTable: ITableV2;
  /** Evidence bucket: summaries (JSON + Markdown). */
  readonly evidenceBucket: IBucket;
  /** Topic for summaries, approval requests and failure notices. */
  readonly topic: ITopic;
  /** Dead-letter queue for EventBridge deliveries to the topic. */
  readonly deliveryDeadLetterQueue: IQueue;
  /** Parameter whose value `on` stops every action. */
  readonly killSwitch: IStringParameter;
  /** Account check functions. */
  readonly checks: AccountChecks;
  /** SSM documents run on nodes. */
  readonly nodeCommands: NodeCommands;
  /** Retention of function and execution logs. */
  readonly logRetention: RetentionDays;
  /**
   * The Kubernetes function (inspect the cluster, verify by pods starting).
   * @default - no cluster access: diagnosis without Kubernetes findings, verification after a fixed window
   */
  readonly kubernetes?: IFunction;
  /**
   * The Kubernetes function's copies in the VPCs of clusters whose API server is reached from inside
   * (besides `kubernetes`, the default route).
   * @default - none
   */
  readonly inVpcs?: readonly ClustersInVpc[];
  /**
   * Per VPC of such clusters, where the door's copy runs (its grants scoped to those clusters); the
   * door outside any VPC serves the other clusters.
   * @default - none
   */
  readonly doorPlacements?: readonly { readonly reach: VpcReach; readonly placement: VpcPlacement }[];
  /**
   * The queue and consumer the chat cards' Approve and Reject custom actions send to: only where a Slack
   * or Teams channel is configured (nothing to press them in otherwise).
   * @default false
   */
  readonly chatApprovals?: boolean;
  /**
   * How long an approval request waits; no answer means no action.
   * @default Duration.hours(1)
   */
  readonly approvalTimeout?: Duration;
  /**
   * How long after a repair the verification looks for new failure lines before probing again.
   * @default Duration.minutes(2)
   */
  readonly verificationWindow?: Duration;
  /**
   * Interval between GetCommandInvocation polls.
   * @default Duration.seconds(5)
   */
  readonly pollInterval?: Duration;
  /**
   * Polls before a node command counts as timed out.
   * @default 60
   */
  readonly maxPolls?: number;
}

/** The clusters of one VPC and the Kubernetes function there. */
export interface ClustersInVpc {
  readonly reach: VpcReach;
  readonly kubernetes: IFunction;
}

/**
 * The incident workflow (Step Functions, Standard, JSONPath): its functions, the approval endpoint,
 * the state graph ({@link IncidentStateGraph}, every node command an `SsmCommand`) and a rule that
 * notifies on executions that fail, time out or are aborted outside the graph's own failure path.
 */
export class IncidentWorkflow extends Construct {
  readonly stateMachine: IStateMachine;
  /** Function URL behind the approve / reject links. */
  readonly approvalUrl: string;
  readonly functions: WorkflowFunctions;
  readonly approval: ApprovalEndpoint;
  /** Where the chat card's Approve and Reject custom actions send, and its consumer (with chat channels). */
  readonly chatApprovals?: ChatApprovals;
  /**
   * The door: the one function that changes anything (node commands, account and cluster remedies,
   * Kubernetes writes), gated right before each change; the only role with mutating grants.
   */
  readonly door: DoorFunction;
  /** The door's copy in each VPC of `inVpcs` (the same gate, grants for that VPC's clusters only). */
  readonly doorsInVpcs: readonly VpcRoute[];
  /** Node commands' completion events resume the workflow (no poll waits while a command runs). */
  private readonly commandCompletion: CommandCompletion;
  /** Status-change events of node commands the command-wait function could not take. */
  readonly commandEventsDeadLetterQueue: IQueue;

  constructor(scope: Construct, id: string, props: IncidentWorkflowProps) {
    super(scope, id);
    const timing = workflowTiming(props);
    const settings = { configStore: props.configStore, logRetention: props.logRetention };
    this.approval = new ApprovalEndpoint(this, 'Approval', {
      ...settings,
      incidentTable: props.incidentTable,
      reservedConcurrency: props.config.approvalReservedConcurrency,
    });
    this.approvalUrl = this.approval.url;
    if (props.chatApprovals)
      this.chatApprovals = new ChatApprovals(this, 'ChatApprovals', {
        ...settings,
        incidentTable: props.incidentTable,
        signingKey: this.approval.signingKey,
        topic: props.topic,
      });
    this.functions = new WorkflowFunctions(this, 'Functions', {
      ...settings,
      clusters: props.config.clusters,
      incidentTable: props.incidentTable,
      evidenceBucket: props.evidenceBucket,
      topic: props.topic,
      killSwitch: props.killSwitch,
      approval: this.approval,
      approvalTimeout: timing.approvalTimeout,
    });
    this.door = this.createDoor(props, settings);
    this.doorsInVpcs = this.createDoorsInVpcs(props, settings);
    this.commandCompletion = new CommandCompletion(this, 'CommandCompletion', {
      ...settings,
      incidentTable: props.incidentTable,
      nodeCommands: props.nodeCommands,
    });
    this.commandEventsDeadLetterQueue = this.commandCompletion.deadLetterQueue;
    const stateMachine = this.createStateMachine(this.stateGraph(props, timing), props, timing);
    this.grantStateMachine(stateMachine, props);
    this.stateMachine = stateMachine;
    notifyOnFailedExecutions(this, stateMachine, props);
  }

  /** The door outside any VPC: every cluster whose functions do not run in a VPC of `doorPlacements`. */
  private createDoor(props: IncidentWorkflowProps, settings: DoorSettings): DoorFunction {
    const inVpc = new Set((props.doorPlacements ?? []).flatMap((v) => v.reach.clusters.map((c) => c.name)));
    return this.doorFor(
      'Door',
      props,
      settings,
      props.config.clusters.filter((c) => !inVpc.has(c.name)),
    );
  }

  /** The door's copy in each VPC of `doorPlacements`, its grants scoped to that VPC's clusters. */
  private createDoorsInVpcs(props: IncidentWorkflowProps, settings: DoorSettings): VpcRoute[] {
    return (props.doorPlacements ?? []).map((v) => ({
      vpcId: v.reach.vpcId,
      clusters: v.reach.clusters.map((c) => c.name),
      fn: this.doorFor(`Door-${v.reach.vpcId}`, props, settings, v.reach.clusters, v.placement).function,
    }));
  }

  private doorFor(
    id: string,
    props: IncidentWorkflowProps,
    settings: DoorSettings,
    clusters: PodDoctorConfig['clusters'],
    placement?: VpcPlacement,
  ): DoorFunction {
    return new DoorFunction(this, id, {
      ...settings,
      clusters,
      incidentTable: props.incidentTable,
      evidenceBucket: props.evidenceBucket,
      killSwitch: props.killSwitch,
      nodeCommands: props.nodeCommands,
      clusterAccess: reachesClusters(props),
      placement,
    });
  }

  /** The state graph over the workflow's functions, the checks, the door and the Kubernetes function when there is one. */
  private stateGraph(props: IncidentWorkflowProps, timing: WorkflowTiming): IncidentStateGraph {
    return new IncidentStateGraph(this, 'States', {
      functions: {
        openIncident: this.functions.openIncident,
        decide: this.functions.decide,
        door: this.door.function,
        requestApproval: this.functions.requestApproval,
        commandWait: this.commandCompletion.function,
        verify: this.functions.verify,
        summarize: this.functions.summarize,
        resolveNode: props.checks.resolveNode,
        checks: props.checks.functions,
        ...(props.kubernetes ? { kubernetes: props.kubernetes } : {}),
        inVpcs: {
          door: this.doorsInVpcs,
          kubernetes: (props.inVpcs ?? []).map((v) => ({
            vpcId: v.reach.vpcId,
            clusters: v.reach.clusters.map((c) => c.name),
            fn: v.kubernetes,
          })),
        },
      },
      topic: props.topic,
      remedies: hasRemediationScope(props.config.clusters) || reachesClusters(props),
      ...timing,
    });
  }

  /** The Standard state machine, traced, timed out after the longest path, logging errors without execution data. */
  private createStateMachine(graph: IncidentStateGraph, props: IncidentWorkflowProps, timing: WorkflowTiming) {
    return new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(graph),
      timeout: executionTimeout(timing.approvalTimeout, timing.verificationWindow, timing.polling),
      tracingEnabled: true,
      // Errors only, without execution data: state carries the approval task token and node output,
      // which do not belong in CloudWatch Logs. The history (90 days) and the evidence bucket keep it.
      logs: {
        destination: new LogGroup(this, 'ExecutionLogs', {
          retention: props.logRetention,
          removalPolicy: RemovalPolicy.RETAIN,
        }),
        level: LogLevel.ERROR,
        // Task inputs and outputs (the approval task token, node command output) stay in the
        // execution history, readable with states:GetExecutionHistory, not copied into a log group.
        includeExecutionData: false,
      },
    });
  }

  /**
   * What the state machine may do beyond invoking its tasks: publish, resume approvals. It changes
   * nothing itself: every change is the door function's.
   */
  private grantStateMachine(stateMachine: StateMachine, props: IncidentWorkflowProps): void {
    acknowledgeStateMachine(stateMachine, [
      ...this.functions.all,
      this.door.function,
      ...this.doorsInVpcs.map((d) => d.fn),
      this.commandCompletion.function,
      ...Object.values(props.checks.functions),
      props.checks.resolveNode,
      ...(props.kubernetes ? [props.kubernetes] : []),
      ...(props.inVpcs ?? []).map((v) => v.kubernetes),
    ]);
    // The sns:publish task's own grant has no KMS: the topic's customer managed key needs it too.
    props.topic.grantPublish(stateMachine);
    acknowledgeTopicKey(stateMachine.role);
    this.approval.grantResume(stateMachine);
    this.chatApprovals?.grantResume(stateMachine);
    this.commandCompletion.grantResume(stateMachine);
  }
}

/** What every function of the workflow shares: where it reads its configuration, its log retention. */
type DoorSettings = { readonly configStore: ConfigStore; readonly logRetention: RetentionDays };

/** The workflow reaches some cluster's Kubernetes API (outside any VPC, or from one). */
function reachesClusters(props: IncidentWorkflowProps): boolean {
  return props.kubernetes !== undefined || (props.inVpcs?.length ?? 0) > 0;
}

/** The workflow's waits: the approval timeout, the verification window and the node-command poll budgets. */
interface WorkflowTiming {
  readonly approvalTimeout: Duration;
  readonly verificationWindow: Duration;
  readonly polling: ReturnType<typeof pollBudgets>;
}

function workflowTiming(props: IncidentWorkflowProps): WorkflowTiming {
  return {
    approvalTimeout: props.approvalTimeout ?? Duration.hours(1),
    verificationWindow: props.verificationWindow ?? Duration.minutes(2),
    polling: pollBudgets(props.pollInterval ?? Duration.seconds(5), props.maxPolls),
  };
}

/** Delivery and output upload around a document's own executionTimeout. */
const COMMAND_MARGIN = Duration.seconds(60);

/**
 * Polls before a node command counts as timed out, derived from the documents' executionTimeout
 * (the probe's, and the longest of the action documents': collect-logs may run 10 minutes).
 */
export function pollBudgets(pollInterval: Duration, maxPolls?: number) {
  const polls = (seconds: number) =>
    maxPolls ?? Math.ceil((seconds + COMMAND_MARGIN.toSeconds()) / pollInterval.toSeconds());
  const actions = (Object.keys(NODE_COMMANDS) as NodeCommandName[]).filter((n) => n !== 'probeNode');
  return {
    pollInterval,
    probePolls: polls(NODE_COMMANDS.probeNode.timeoutSeconds),
    actPolls: polls(Math.max(...actions.map((n) => NODE_COMMANDS[n].timeoutSeconds))),
  };
}

/**
 * The execution timeout: the longest path plus an hour for the Lambda steps and retries (the drain's
 * at most 15 minutes included); never less than 6 hours. The longest path is PID exhaustion's: probe,
 * collect logs, approval wait, probe, restart, verification window and probe, then the drain's
 * approval wait and probe.
 */
export function executionTimeout(
  approvalTimeout: Duration,
  verificationWindow: Duration,
  polling: ReturnType<typeof pollBudgets>,
): Duration {
  const pollSeconds = (n: number) => n * (polling.pollInterval.toSeconds() + 2);
  const seconds =
    pollSeconds(polling.probePolls) * 4 +
    approvalTimeout.toSeconds() * 2 +
    pollSeconds(polling.actPolls) * 2 +
    verificationWindow.toSeconds() +
    3600;
  return Duration.seconds(Math.max(seconds, Duration.hours(6).toSeconds()));
}

/** An execution that fails, times out or is aborted outside the Catch path still reaches a human. */
function notifyOnFailedExecutions(scope: Construct, stateMachine: IStateMachine, props: IncidentWorkflowProps): void {
  const rule = new Rule(scope, 'ExecutionFailedRule', {
    description: 'pod-doctor: notify when an incident workflow execution fails, times out or is aborted',
    eventPattern: {
      source: ['aws.states'],
      detailType: ['Step Functions Execution Status Change'],
      detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [stateMachine.stateMachineArn] },
    },
  });
  rule.addTarget(new TopicFromRule(props.topic, props.deliveryDeadLetterQueue));
}
