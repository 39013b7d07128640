import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  Choice,
  Condition,
  Fail,
  type INextable,
  JsonPath,
  Parallel,
  Pass,
  Result,
  type State,
  StateMachineFragment,
  Succeed,
  TaskInput,
  type TaskStateBase,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke, SnsPublish } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { CheckGroupName as CheckGroup } from '../../../lambdas/core/workflow/execution-state.js';
import { at, CHECK_GROUPS, WORKFLOW_ERRORS } from '../../../lambdas/core/workflow/execution-state.js';
import { actionStates } from './action-states.js';
import { DoorStates, probeRequest } from './door-states.js';
import { anyRoute, routedTask, type VpcRoute } from './routes.js';
import { invokeNarrowed, retried, SNS_TRANSIENT } from './tasks.js';

/** The Lambda functions the graph invokes. */
export interface IncidentStateFunctions {
  readonly openIncident: IFunction;
  readonly resolveNode: IFunction;
  readonly checks: Readonly<Record<CheckGroup, IFunction>>;
  readonly decide: IFunction;
  /** The door: the one gate and the only mutating clients. */
  readonly door: IFunction;
  readonly requestApproval: IFunction;
  /** Keeps the task token of "Door: await command" until the command's completion event resumes it. */
  readonly commandWait: IFunction;
  readonly verify: IFunction;
  readonly summarize: IFunction;
  /** Kubernetes API of the cluster (read-only: inspect, watch pods start); absent: no cluster access. */
  readonly kubernetes?: IFunction;
  /** The door's and the Kubernetes function's copies in the VPCs of private clusters (issue 36). @default - none */
  readonly inVpcs?: { readonly door: readonly VpcRoute[]; readonly kubernetes: readonly VpcRoute[] };
}

/** Props of {@link IncidentStateGraph}. */
export interface IncidentStateGraphProps {
  readonly functions: IncidentStateFunctions;
  /** Topic for summaries and failure notices. */
  readonly topic: ITopic;
  /** How long an approval request waits; no answer means no action. */
  readonly approvalTimeout: Duration;
  /** How long after a repair to wait before probing again. */
  readonly verificationWindow: Duration;
  /** Poll settings of the node commands: interval, and polls before the probe / an action times out. */
  readonly polling: {
    readonly pollInterval: Duration;
    readonly probePolls: number;
    readonly actPolls: number;
  };
  /** The stack can change accounts (some cluster lists a remediation scope) or reach a cluster's API. */
  readonly remedies: boolean;
}

const SUMMARY_FIELDS = ['subject', 'message', 'outcome', 'summaryJson'];

/** Labels of the check groups in state names. */
const CHECK_LABELS: Readonly<Record<CheckGroup, string>> = {
  iam: 'IAM',
  ecr: 'ECR',
  network: 'network',
  eks: 'EKS',
  changes: 'recent changes',
};

/**
 * The incident workflow's states (JSONPath, every path defined by lambdas/core/workflow/execution-state.ts):
 * open → resolve node → [probe the node through the door] → diagnose (check groups and the
 * cluster, in parallel) → decide → the plan's actions, each through the door (action-states.ts) →
 * summarize → notify. Every failure goes through "Record failure" → "Notify failure".
 */
export class IncidentStateGraph extends StateMachineFragment {
  readonly startState: State;
  readonly endStates: INextable[] = [];
  private readonly props: IncidentStateGraphProps;
  private readonly recordFailure: TaskStateBase;

  constructor(scope: Construct, id: string, props: IncidentStateGraphProps) {
    super(scope, id);
    this.props = props;
    this.recordFailure = this.failurePath();
    const f = props.functions;
    const door = new DoorStates(this, {
      door: f.door,
      doorInVpcs: f.inVpcs?.door,
      requestApproval: f.requestApproval,
      commandWait: f.commandWait,
      approvalTimeout: props.approvalTimeout,
      pollInterval: props.polling.pollInterval,
      polls: { probe: props.polling.probePolls, action: props.polling.actPolls },
      onError: (t) => this.onError(t),
    });
    const summarize = this.summarizeAndNotify(door);
    door.backTo.otherwise(summarize);
    const decide = this.decide();
    const diagnose = this.diagnose();
    diagnose.next(decide);
    door.continueWith('diagnose', diagnose);
    decide.next(
      actionStates(this, {
        door,
        verify: f.verify,
        kubernetes: f.kubernetes,
        kubernetesInVpcs: f.inVpcs?.kubernetes,
        verificationWindow: props.verificationWindow,
        remedies: props.remedies,
        summarize,
        onError: (t) => this.onError(t),
      }),
    );
    this.startState = this.openAndResolve(this.probe(door, diagnose));
  }

  /** Catches every error of `s` into the failure path. */
  private onError<T extends TaskStateBase | Parallel>(s: T): T {
    s.addCatch(this.recordFailure, { resultPath: at('error') });
    return s;
  }

  private publish(id: string, subject: string, message: TaskInput): SnsPublish {
    return retried(
      new SnsPublish(this, id, { topic: this.props.topic, subject, message, resultPath: JsonPath.DISCARD }),
      SNS_TRANSIENT,
    );
  }

  /** Record failure → Notify failure → Workflow failed; if recording fails, a bare notice. */
  private failurePath(): TaskStateBase {
    const failed = new Fail(this, 'Workflow failed', {
      cause: 'the incident workflow failed; it was recorded and notified',
    });
    const notifyBare = this.publish(
      'Notify bare failure',
      'pod-doctor: incident workflow failed (not recorded)',
      // SNS takes a string: the state as JSON text (an object here fails the Publish).
      TaskInput.fromText(JsonPath.jsonToString(JsonPath.objectAt('$'))),
    );
    notifyBare.addCatch(failed, { resultPath: at('notifyError') });
    notifyBare.next(failed);
    const notifyFailure = this.publish(
      'Notify failure',
      JsonPath.stringAt(at('summary', 'subject')),
      TaskInput.fromJsonPathAt(at('summary', 'message')),
    );
    notifyFailure.addCatch(notifyBare, { resultPath: at('notifyError') });
    notifyFailure.next(failed);
    const record = invokeNarrowed(
      this,
      'Record failure',
      this.props.functions.summarize,
      TaskInput.fromJsonPathAt('$'),
      SUMMARY_FIELDS,
      at('summary'),
    );
    record.addCatch(notifyBare, { resultPath: at('recordError') });
    record.next(notifyFailure);
    return record;
  }

  /**
   * Summarize → [Report to cluster: the run as Kubernetes events, through the door, when pod-doctor
   * reaches the cluster's API] → Notify → Incident closed.
   */
  private summarizeAndNotify(door: DoorStates): TaskStateBase {
    const summarize = this.onError(
      invokeNarrowed(
        this,
        'Summarize',
        this.props.functions.summarize,
        TaskInput.fromJsonPathAt('$'),
        SUMMARY_FIELDS,
        at('summary'),
      ),
    );
    const notify = this.onError(
      this.publish(
        'Notify',
        JsonPath.stringAt(at('summary', 'subject')),
        TaskInput.fromJsonPathAt(at('summary', 'message')),
      ),
    );
    notify.next(new Succeed(this, 'Incident closed'));
    if (!anyRoute(this.props.functions.kubernetes, this.props.functions.inVpcs?.kubernetes))
      return summarize.next(notify) && summarize;
    door.continueWith('report', notify);
    summarize.next(
      door.call('Report to cluster: request', {
        slot: 'report',
        returnTo: 'report',
        request: {
          action: { kind: 'report-events', 'summaryJson.$': at('summary', 'summaryJson') },
          disposition: 'auto',
          description: 'the cause, each action and the summary link as events on the node and its stuck pods',
          reason: 'events only: what pod-doctor found and did, where kubectl shows it',
        },
      }),
    );
    return summarize;
  }

  /** Decide: the plan and the requests the door runs. */
  private decide(): TaskStateBase {
    return this.onError(
      invokeNarrowed(
        this,
        'Decide',
        this.props.functions.decide,
        TaskInput.fromJsonPathAt('$'),
        ['decision', 'actions', 'reasons', 'recommendations', 'findings', 'requests', 'drain', 'evict'],
        at('plan'),
      ),
    );
  }

  /** One check group; it answers no finding at once when the class does not need it. */
  private checkBranch(group: CheckGroup): State {
    const label = CHECK_LABELS[group];
    const run = invokeNarrowed(
      this,
      `Check ${label}`,
      this.props.functions.checks[group],
      TaskInput.fromObject({
        'node.$': at('node'),
        'cluster.$': at('cluster'),
        'region.$': at('open', 'region'),
        'account.$': at('open', 'account'),
        'incidentId.$': at('incidentId'),
        'entities.$': at('entities'),
        'class.$': at('class'),
      }),
      ['findings'],
    );
    // A check function that fails or times out is an `error` finding (the policy then fails closed),
    // never a failed Diagnose and so never a failed incident.
    run.addCatch(
      new Pass(this, `${label} checks failed`, {
        parameters: {
          findings: [
            {
              id: `check.${group}`,
              status: 'error',
              'summary.$': `States.Format('the ${label} checks could not run: {}', $.checkError.Error)`,
              'evidence.$': '$.checkError',
              remediation: null,
            },
          ],
        },
      }),
      { resultPath: '$.checkError' },
    );
    return run;
  }

  /** Diagnose: the account check groups and the Kubernetes inspection in parallel, each branch by name. */
  private diagnose(): Parallel {
    const diagnose = new Parallel(this, 'Diagnose', {
      resultPath: at('diagnosis'),
      // The branches by name (the order of .branch() below): no reader indexes into the array.
      resultSelector: Object.fromEntries([...CHECK_GROUPS, 'kubernetes'].map((name, i) => [`${name}.$`, `$[${i}]`])),
    });
    for (const group of CHECK_GROUPS) diagnose.branch(this.checkBranch(group));
    return this.onError(diagnose.branch(this.kubernetesBranch()));
  }

  /** Inspect cluster: stuck pods and their events, the node, aws-node, VPC CNI settings. */
  private kubernetesBranch(): State {
    const fn = this.props.functions.kubernetes;
    const none = (id: string, findings: Record<string, unknown>[]) =>
      new Pass(this, id, { result: Result.fromObject({ findings, stuckPods: [] }) });
    if (!anyRoute(fn, this.props.functions.inVpcs?.kubernetes)) return none('No cluster access', []);
    const inspect = routedTask(this, 'Inspect cluster', fn, this.props.functions.inVpcs?.kubernetes ?? [], (id, f) =>
      invokeNarrowed(
        this,
        id,
        f,
        TaskInput.fromObject({
          action: 'inspect',
          'cluster.$': at('cluster'),
          'node.$': at('node'),
          'entities.$': at('entities'),
          'failureClass.$': at('class'),
        }),
        ['findings', 'stuckPods'],
      ),
    );
    // A failed inspection is an error finding (never a pass), not a failed incident.
    const failed = {
      id: 'k8s.stuck-pods',
      status: 'error',
      summary: 'the Kubernetes inspection failed: see the execution history',
      evidence: {},
      remediation: 'check the access entry and k8s/pod-doctor-rbac.yaml on the cluster',
    };
    const notInspected = none('Cluster not inspected', [failed]);
    for (const t of inspect.tasks) t.addCatch(notInspected, { resultPath: JsonPath.DISCARD });
    return inspect.entry;
  }

  /** Probe node? → the probe through the door (its findings are the node's own evidence) → Diagnose. */
  private probe(door: DoorStates, diagnose: Parallel): State {
    return new Choice(this, 'Probe node?')
      .when(
        Condition.and(
          Condition.booleanEquals(at('open', 'probe'), true),
          Condition.isPresent(at('node', 'instanceId')),
        ),
        door.call('Probe: request', {
          slot: 'probe',
          returnTo: 'diagnose',
          request: probeRequest('probe the node (read-only): sandbox image, runtime, disk, PIDs, ECR reachability'),
        }),
      )
      .otherwise(diagnose);
  }

  /** Start → Open incident → Already running? → Node known? → [Resolve node] → `next`. */
  private openAndResolve(next: State): State {
    const f = this.props.functions;
    const resolve = retried(
      new LambdaInvoke(this, 'Resolve node', {
        lambdaFunction: f.resolveNode,
        payload: TaskInput.fromObject({
          'node.$': at('open', 'node'),
          'cluster.$': at('cluster'),
          'account.$': at('open', 'account'),
          'region.$': at('open', 'region'),
          'incidentId.$': at('incidentId'),
        }),
        // The function's result is the node context itself.
        payloadResponseOnly: true,
        resultPath: at('node'),
        retryOnServiceExceptions: false,
      }),
    );
    const noNode = new Pass(this, 'No node', { result: Result.fromObject({}), resultPath: at('node') }).next(next);
    resolve.addCatch(noNode, {
      errors: [WORKFLOW_ERRORS.nodeNotFound, WORKFLOW_ERRORS.nodeNotInCluster],
      resultPath: at('resolveError'),
    });
    this.onError(resolve);
    resolve.next(next);
    const start = new Pass(this, 'Start', {
      parameters: { 'arn.$': '$$.Execution.Id', 'startedAt.$': '$$.Execution.StartTime' },
      resultPath: at('execution'),
    });
    const open = this.onError(
      invokeNarrowed(
        this,
        'Open incident',
        f.openIncident,
        TaskInput.fromObject({ 'incident.$': '$', 'executionId.$': '$$.Execution.Id' }),
        ['duplicate', 'gate', 'history', 'node', 'checks', 'probe', 'region', 'account', 'openedAt'],
        at('open'),
      ),
    );
    const duplicate = new Succeed(this, 'Duplicate: another execution handles this incident');
    start
      .next(open)
      .next(
        new Choice(this, 'Already running?')
          .when(Condition.booleanEquals(at('open', 'duplicate'), true), duplicate)
          .otherwise(
            new Choice(this, 'Node known?').when(Condition.isString(at('open', 'node')), resolve).otherwise(noNode),
          ),
      );
    return start;
  }
}
