import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  Choice,
  Condition,
  Fail,
  type IChainable,
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
import type { CheckGroup } from '../../../lambdas/aws/checks/groups.js';
import { actStates } from './act-states.js';
import { remedyRuns, remedyStates } from './remedy-states.js';
import { SsmCommand, type SsmCommandProps } from './ssm-command.js';
import { invokeNarrowed, retried, SNS_TRANSIENT } from './tasks.js';

/** The Lambda functions the graph invokes. */
export interface IncidentStateFunctions {
  readonly openIncident: IFunction;
  readonly resolveNode: IFunction;
  readonly checks: Readonly<Record<CheckGroup, IFunction>>;
  readonly decide: IFunction;
  /** The gate right before every Act. */
  readonly actGate: IFunction;
  readonly requestApproval: IFunction;
  readonly verify: IFunction;
  readonly summarize: IFunction;
  /**
   * Kubernetes API of the cluster (inspect, verify by pods starting, cluster remedies); absent: no
   * cluster access.
   */
  readonly kubernetes?: IFunction;
  /** Account remedies (prepare and apply); absent: no account may be changed. */
  readonly remedy?: IFunction;
}

/** Props of {@link IncidentStateGraph}. */
export interface IncidentStateGraphProps {
  readonly functions: IncidentStateFunctions;
  /** Topic for summaries and failure notices. */
  readonly topic: ITopic;
  /** Name (reference) of the probe-node document. */
  readonly probeDocumentName: string;
  /** ARNs of every document the workflow may send. */
  readonly documentArns: readonly string[];
  /** How long an approval request waits; no answer means no action. */
  readonly approvalTimeout: Duration;
  /** How long after a repair to wait before probing again. */
  readonly verificationWindow: Duration;
  /** Poll settings of the node commands: interval, and polls before the probe / an action times out. */
  readonly polling: {
    readonly pollInterval: Duration;
    /** Polls of probe-node (first probe and verification), from its executionTimeout. */
    readonly probePolls: number;
    /** Polls of the plan's action, from the longest executionTimeout among the action documents. */
    readonly actPolls: number;
  };
}

const SUMMARY_FIELDS = ['subject', 'message', 'outcome'];

/**
 * The incident workflow's states (JSONPath): open → gate → resolve node → diagnose (checks in
 * parallel + node probe) → decide → [account remedy → ] [approval] → act → verify or follow-up
 * (act-states.ts) → summarize → notify. Every failure goes through "Record failure" → "Notify failure".
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
    const summarize = this.summarizeAndNotify();
    const f = props.functions;
    const { act, approval } = actStates(this, {
      actGate: f.actGate,
      requestApproval: f.requestApproval,
      verify: f.verify,
      ...(f.kubernetes ? { kubernetes: f.kubernetes } : {}),
      approvalTimeout: props.approvalTimeout,
      verificationWindow: props.verificationWindow,
      probePolls: props.polling.probePolls,
      actPolls: props.polling.actPolls,
      stuckPodsPath: `$.diagnosis[${this.kubernetesBranchIndex}].stuckPods`,
      command: (id, p) => this.command(id, p),
      summarize,
      recordFailure: this.recordFailure,
      onError: (t) => this.onError(t),
    });
    const decide = this.decide(act, approval, summarize);
    const diagnose = this.diagnose();
    diagnose.next(decide);
    this.startState = this.openAndResolve(diagnose);
  }

  /** Catches every error of `s` into the failure path. */
  private onError<T extends TaskStateBase | Parallel>(s: T): T {
    s.addCatch(this.recordFailure, { resultPath: '$.error' });
    return s;
  }

  private invoke(id: string, fn: IFunction, payload: TaskInput, fields: readonly string[], resultPath?: string) {
    return invokeNarrowed(this, id, fn, payload, fields, resultPath);
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
    notifyBare.addCatch(failed, { resultPath: '$.notifyError' });
    notifyBare.next(failed);
    const notifyFailure = this.publish(
      'Notify failure',
      JsonPath.stringAt('$.summary.subject'),
      TaskInput.fromJsonPathAt('$.summary.message'),
    );
    notifyFailure.addCatch(notifyBare, { resultPath: '$.notifyError' });
    notifyFailure.next(failed);
    const f = this.props.functions;
    const record = this.invoke(
      'Record failure',
      f.summarize,
      TaskInput.fromJsonPathAt('$'),
      SUMMARY_FIELDS,
      '$.summary',
    );
    record.addCatch(notifyBare, { resultPath: '$.recordError' });
    record.next(notifyFailure);
    return record;
  }

  /** Summarize → Notify → Incident closed. */
  private summarizeAndNotify(): TaskStateBase {
    const f = this.props.functions;
    const summarize = this.onError(
      this.invoke('Summarize', f.summarize, TaskInput.fromJsonPathAt('$'), SUMMARY_FIELDS, '$.summary'),
    );
    const notify = this.onError(
      this.publish('Notify', JsonPath.stringAt('$.summary.subject'), TaskInput.fromJsonPathAt('$.summary.message')),
    );
    summarize.next(notify).next(new Succeed(this, 'Incident closed'));
    return summarize;
  }

  private command(id: string, props: Omit<SsmCommandProps, 'documentArns' | 'pollInterval'>) {
    return new SsmCommand(this, id, {
      ...props,
      pollInterval: this.props.polling.pollInterval,
      documentArns: this.props.documentArns,
    });
  }

  /** Decide → Act, ask or report? */
  private decide(act: IChainable, requestApproval: IChainable, summarize: IChainable): TaskStateBase {
    const decide = this.onError(
      this.invoke(
        'Decide',
        this.props.functions.decide,
        TaskInput.fromJsonPathAt('$'),
        [
          'decision',
          'actions',
          'reasons',
          'recommendations',
          'findings',
          'nodeAction',
          'followUp',
          'nodeGroupSize',
          'remedy',
          'drain',
          'evict',
        ],
        '$.plan',
      ),
    );
    const planIs = (decision: string) =>
      Condition.and(
        Condition.stringEquals('$.plan.decision', decision),
        Condition.isPresent('$.plan.nodeAction.documentName'),
      );
    const choice = new Choice(this, 'Act, ask or report?');
    const { remedy, kubernetes } = this.props.functions;
    // The remedy is a branch of this one Choice, so a plan without one (the auto pause repair)
    // takes no extra transition; after the remedy, the node part of the plan continues.
    if (remedy || kubernetes)
      choice.when(
        remedyRuns({ remedy, kubernetes }),
        remedyStates(this, {
          ...(remedy ? { remedy } : {}),
          ...(kubernetes ? { kubernetes } : {}),
          requestApproval: this.props.functions.requestApproval,
          approvalTimeout: this.props.approvalTimeout,
          nodePath: new Choice(this, 'Node action after remedy?')
            .when(planIs('act'), act)
            .when(planIs('approve'), requestApproval)
            .otherwise(summarize),
          summarize,
          onError: (t) => this.onError(t),
        }),
      );
    decide.next(choice.when(planIs('act'), act).when(planIs('approve'), requestApproval).otherwise(summarize));
    return decide;
  }

  /** One check group: run when the class needs it (and a node is known, if the group needs one). */
  private checkBranch(group: CheckGroup, label: string, needsNode: boolean): IChainable {
    const run = this.invoke(
      `Check ${label}`,
      this.props.functions.checks[group],
      TaskInput.fromObject({
        'node.$': '$.node',
        'cluster.$': '$.cluster',
        'region.$': '$.open.region',
        'entities.$': '$.entities',
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
    const skip = new Pass(this, `Skip ${label} checks`, { result: Result.fromObject({ findings: [] }) });
    const when = Condition.booleanEquals(`$.open.checks.${group}`, true);
    return new Choice(this, `Run ${label} checks?`)
      .when(needsNode ? Condition.and(when, Condition.isPresent('$.node.instanceId')) : when, run)
      .otherwise(skip);
  }

  /** Diagnose: the account checks and the node probe, in parallel. */
  private diagnose(): Parallel {
    const probeNotManaged = new Pass(this, 'Probe: node not managed by SSM', {
      parameters: { probe: { status: 'NotManaged', 'stderr.$': '$.probeRun.error.Cause' } },
    });
    // SendCommand denied (the node lacks a tag the grant accepts) or any other error of the probe's
    // calls: an `error` finding through the probe result, never a failed Diagnose.
    const probeFailed = new Pass(this, 'Probe: could not run', {
      parameters: { probe: { status: 'CommandError', 'error.$': '$.error' } },
    });
    const probeRun = this.command('Probe', {
      documentPath: '$.open.commands.probeNode',
      parametersPath: '$.open.commands.probeParameters',
      resultPath: '$.probeRun',
      notManaged: probeNotManaged,
      onError: probeFailed,
      maxPolls: this.props.polling.probePolls,
    }).next(new Pass(this, 'Keep probe result', { parameters: { 'probe.$': '$.probeRun.result' } }));
    const probeBranch = new Choice(this, 'Probe node?')
      .when(
        Condition.and(Condition.booleanEquals('$.open.probe', true), Condition.isPresent('$.node.instanceId')),
        probeRun,
      )
      .otherwise(new Pass(this, 'Skip probe', { result: Result.fromObject({ probe: { status: 'skipped' } }) }));
    return this.onError(
      new Parallel(this, 'Diagnose', { resultPath: '$.diagnosis' })
        .branch(this.checkBranch('iam', 'IAM', true))
        .branch(this.checkBranch('ecr', 'ECR', false))
        .branch(this.checkBranch('network', 'network', true))
        .branch(this.checkBranch('eks', 'EKS', true))
        .branch(this.checkBranch('changes', 'recent changes', false))
        .branch(probeBranch)
        .branch(this.kubernetesBranch()),
    );
  }

  /** Index of the Kubernetes branch in the Diagnose output (after the five check groups and the probe). */
  private readonly kubernetesBranchIndex = 6;

  /** Inspect cluster: stuck pods and their events, the node, aws-node, VPC CNI settings. */
  private kubernetesBranch(): IChainable {
    const fn = this.props.functions.kubernetes;
    const none = (id: string, findings: Record<string, unknown>[]) =>
      new Pass(this, id, { result: Result.fromObject({ findings, stuckPods: [] }) });
    if (!fn) return none('No cluster access', []);
    const inspect = this.invoke(
      'Inspect cluster',
      fn,
      TaskInput.fromObject({
        action: 'inspect',
        'cluster.$': '$.cluster',
        'node.$': '$.node',
        'entities.$': '$.entities',
        'failureClass.$': '$.class',
      }),
      ['findings', 'stuckPods'],
    );
    // A failed inspection is an error finding (never a pass), not a failed incident.
    const failed = {
      id: 'k8s.stuck-pods',
      status: 'error',
      summary: 'the Kubernetes inspection failed: see the execution history',
      evidence: {},
      remediation: 'check the access entry and k8s/pod-doctor-rbac.yaml on the cluster',
    };
    inspect.addCatch(none('Cluster not inspected', [failed]), {
      resultPath: JsonPath.DISCARD,
    });
    return inspect;
  }

  /** Start → Open incident → Already running? → Note probe command → Node known? → [Resolve node]. */
  private openAndResolve(diagnose: Parallel): State {
    const f = this.props.functions;
    const resolve = retried(
      new LambdaInvoke(this, 'Resolve node', {
        lambdaFunction: f.resolveNode,
        payload: TaskInput.fromObject({ 'node.$': '$.open.node', 'cluster.$': '$.cluster' }),
        // The function's result is the node context itself.
        payloadResponseOnly: true,
        resultPath: '$.node',
        retryOnServiceExceptions: false,
      }),
    );
    const nodeNotFound = new Pass(this, 'Node not found', { result: Result.fromObject({}), resultPath: '$.node' });
    resolve.addCatch(nodeNotFound.next(diagnose), {
      errors: ['NodeNotFoundError', 'NodeNotInClusterError'],
      resultPath: '$.resolveError',
    });
    this.onError(resolve);
    resolve.next(diagnose);
    const start = new Pass(this, 'Start', {
      parameters: { 'arn.$': '$$.Execution.Id', 'startedAt.$': '$$.Execution.StartTime' },
      resultPath: '$.execution',
    });
    const open = this.onError(
      this.invoke(
        'Open incident',
        f.openIncident,
        TaskInput.fromObject({ 'incident.$': '$', 'executionId.$': '$$.Execution.Id' }),
        ['duplicate', 'gate', 'history', 'node', 'checks', 'probe', 'region', 'openedAt'],
        '$.open',
      ),
    );
    // The probe document and its parameters, stamped into the state once.
    const documents = new Pass(this, 'Note probe command', {
      parameters: {
        probeNode: this.props.probeDocumentName,
        probeParameters: { 'Region.$': 'States.Array($.open.region)' },
      },
      resultPath: '$.open.commands',
    });
    const duplicate = new Succeed(this, 'Duplicate: another execution handles this incident');
    start
      .next(open)
      .next(
        new Choice(this, 'Already running?')
          .when(Condition.booleanEquals('$.open.duplicate', true), duplicate)
          .otherwise(documents),
      );
    const noNode = new Pass(this, 'No node', { result: Result.fromObject({}), resultPath: '$.node' });
    documents.next(
      new Choice(this, 'Node known?').when(Condition.isString('$.open.node'), resolve).otherwise(noNode.next(diagnose)),
    );
    return start;
  }
}
