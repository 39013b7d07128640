import { Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import {
  Choice,
  Condition,
  DefinitionBody,
  Fail,
  type IChainable,
  IntegrationPattern,
  type IStateMachine,
  JsonPath,
  LogLevel,
  Parallel,
  Pass,
  Result,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
  type TaskStateBase,
  Timeout,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { CallAwsService, LambdaInvoke, SnsPublish } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { CheckGroup } from '../../lambdas/aws/checks/groups.js';
import type { PodDoctorConfig } from '../config.js';
import type { AccountChecks } from './account-checks.js';
import type { NodeCommands } from './node-commands.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** Props of {@link IncidentWorkflow}. */
export interface IncidentWorkflowProps {
  /** Validated configuration (modes, limits, clusters). */
  readonly config: PodDoctorConfig;
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

const THROTTLING = [
  'ThrottlingException',
  'Lambda.TooManyRequestsException',
  'Lambda.ServiceException',
  'Lambda.SdkClientException',
];
const SSM_THROTTLING = ['Ssm.ThrottlingException', 'Ssm.InternalServerErrorException', 'Ssm.SsmException'];

/**
 * The incident workflow (Step Functions, Standard, JSONPath): open → gate → resolve node → diagnose
 * (checks in parallel + node probe over SSM) → decide → [approval] → act (SSM document, poll loop)
 * → verify → summarize → notify. Every failure lands in one path that records and notifies.
 */
export class IncidentWorkflow extends Construct {
  readonly stateMachine: IStateMachine;
  /** Function URL behind the approve / reject links. */
  readonly approvalUrl: string;

  constructor(scope: Construct, id: string, props: IncidentWorkflowProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { config } = props;
    const approvalTimeout = props.approvalTimeout ?? Duration.hours(1);
    const pollInterval = props.pollInterval ?? Duration.seconds(5);
    const maxPolls = props.maxPolls ?? 60;
    const docs = props.nodeCommands.documents;

    const workflowConfig = stack.toJsonString({
      clusters: config.clusters.map((c) => ({ name: c.name, region: c.region })),
      modes: config.modes,
      limits: config.limits,
      killSwitchParameterName: props.killSwitch.parameterName,
      documents: {
        probeNode: docs.probeNode.ref,
        repairPauseImage: docs.repairPauseImage.ref,
        collectLogs: docs.collectLogs.ref,
        restartRuntime: docs.restartRuntime.ref,
      },
      historyRetentionDays: config.historyRetentionDays,
      evidenceBucket: props.evidenceBucket.bucketName,
      tableName: props.incidentTable.tableName,
    });
    const fn = (name: string, entry: string, description: string, extra: Record<string, string> = {}) =>
      new PodDoctorFunction(this, name, {
        entry: lambdaEntry(entry),
        description: `pod-doctor: ${description}`,
        logRetention: props.logRetention,
        synchronousOnly: true,
        environment: { WORKFLOW_CONFIG: workflowConfig, ...extra },
      });

    // --- functions -------------------------------------------------------------------------------
    const openFn = fn(
      'OpenIncidentFunction',
      'open-incident',
      'open an incident: lock, kill switch, mode, action history',
    );
    props.incidentTable.grant(openFn, 'dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:Query');
    props.killSwitch.grantRead(openFn);
    const decideFn = fn('DecideFunction', 'decide', 'decide: findings and safety policy to a plan');
    const nodegroupArns = config.clusters.map((c) =>
      stack.formatArn({
        service: 'eks',
        resource: 'nodegroup',
        resourceName: `${c.name}/*`,
        region: c.region ?? stack.region,
      }),
    );
    if (nodegroupArns.length) {
      decideFn.addToRolePolicy(new PolicyStatement({ actions: ['eks:DescribeNodegroup'], resources: nodegroupArns }));
      for (const c of config.clusters) {
        Validations.of(decideFn.role as IRole).acknowledge({
          id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:eks:${c.region ?? nagRegion(stack)}:<AWS::AccountId>:nodegroup/${c.name}/*]`,
          reason:
            'Node group ARNs end in a generated id; scoped to the configured cluster (breaker reads the node group size).',
        });
      }
    }
    const verifyFn = fn('VerifyFunction', 'verify', 'verify a repair: probe clean and no new failure lines');
    props.incidentTable.grant(verifyFn, 'dynamodb:GetItem');
    const summarizeFn = fn(
      'SummarizeFunction',
      'summarize',
      'summarize and record an incident (evidence, history, metrics)',
    );
    props.incidentTable.grant(summarizeFn, 'dynamodb:PutItem', 'dynamodb:UpdateItem');
    summarizeFn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.evidenceBucket.arnForObjects('incidents/*')],
      }),
    );
    Validations.of(summarizeFn.role as IRole).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${stack.getLogicalId(props.evidenceBucket.node.defaultChild as never)}.Arn>/incidents/*]`,
      reason: 'Summaries are written under incidents/<incident id>/; the prefix is the narrowest scope.',
    });

    const approvalKey = new Secret(this, 'ApprovalKey', {
      description: 'pod-doctor: HMAC key that signs approval links',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(approvalKey).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'HMAC signing key for approval links that expire within the approval timeout; rotate it by replacing the secret (pending approvals then simply expire).',
    });
    const callbackFn = fn(
      'ApprovalCallbackFunction',
      'approval-callback',
      'approval link endpoint (signed, expiring)',
      {
        APPROVAL_SECRET_ARN: approvalKey.secretArn,
      },
    );
    approvalKey.grantRead(callbackFn);
    props.incidentTable.grant(callbackFn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    // Approvers click links in an e-mail: no AWS credentials; the HMAC signature and expiry are the authentication.
    const url = callbackFn.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });
    this.approvalUrl = url.url;
    const requestFn = fn('ApprovalRequestFunction', 'approval-request', 'send an approval request with signed links', {
      APPROVAL_SECRET_ARN: approvalKey.secretArn,
      TOPIC_ARN: props.topic.topicArn,
      CALLBACK_URL: url.url,
      APPROVAL_TIMEOUT_MINUTES: String(approvalTimeout.toMinutes()),
    });
    approvalKey.grantRead(requestFn);
    props.topic.grantPublish(requestFn);
    props.incidentTable.grant(requestFn, 'dynamodb:PutItem');

    /** A Lambda step whose output is narrowed to `fields` of the function's result. */
    const invoke = (id: string, fn: IFunction, payload: TaskInput, fields: readonly string[], resultPath?: string) =>
      retried(
        new LambdaInvoke(this, id, {
          lambdaFunction: fn,
          payload,
          resultSelector: Object.fromEntries(fields.map((f) => [`${f}.$`, `$.Payload.${f}`])),
          resultPath,
          retryOnServiceExceptions: false,
        }),
      );
    const SUMMARY_FIELDS = ['subject', 'message', 'outcome'];

    // --- failure path: record and notify, always ----------------------------------------------------
    const failed = new Fail(this, 'Workflow failed', {
      cause: 'the incident workflow failed; it was recorded and notified',
    });
    const notifyBare = retried(
      new SnsPublish(this, 'Notify bare failure', {
        topic: props.topic,
        subject: 'pod-doctor: incident workflow failed (not recorded)',
        message: TaskInput.fromJsonPathAt('$'),
        resultPath: JsonPath.DISCARD,
      }),
    );
    notifyBare.addCatch(failed, { resultPath: '$.notifyError' });
    notifyBare.next(failed);
    const notifyFailure = retried(
      new SnsPublish(this, 'Notify failure', {
        topic: props.topic,
        subject: JsonPath.stringAt('$.summary.subject'),
        message: TaskInput.fromJsonPathAt('$.summary.message'),
        resultPath: JsonPath.DISCARD,
      }),
    );
    notifyFailure.addCatch(notifyBare, { resultPath: '$.notifyError' });
    notifyFailure.next(failed);
    const recordFailure = invoke(
      'Record failure',
      summarizeFn,
      TaskInput.fromJsonPathAt('$'),
      SUMMARY_FIELDS,
      '$.summary',
    );
    recordFailure.addCatch(notifyBare, { resultPath: '$.recordError' });
    recordFailure.next(notifyFailure);
    const onError = <T extends TaskStateBase | Parallel>(s: T): T => {
      s.addCatch(recordFailure, { resultPath: '$.error' });
      return s;
    };

    // --- SSM: send a document and poll for its result -----------------------------------------------
    const runCommand = (
      prefix: string,
      o: {
        document: string;
        parameters: string;
        resultPath: string;
        inBranch: boolean;
        notManaged: IChainable;
        next: IChainable;
      },
    ): IChainable => {
      const stamp = new Pass(this, `${prefix}: stamp`, {
        parameters: { 'sentAt.$': '$$.State.EnteredTime', counter: { n: 0 } },
        resultPath: o.resultPath,
      });
      const send = new CallAwsService(this, `${prefix}: send command`, {
        service: 'ssm',
        action: 'sendCommand',
        parameters: {
          'DocumentName.$': o.document,
          'InstanceIds.$': 'States.Array($.node.instanceId)',
          'Parameters.$': o.parameters,
          Comment: 'pod-doctor',
        },
        // The instance half of the grant (tag-conditioned) comes from NodeCommands.grantSendCommand.
        iamResources: Object.keys(docs).map((k) => props.nodeCommands.documentArn(k as keyof typeof docs)),
        iamAction: 'ssm:SendCommand',
        resultSelector: { 'commandId.$': '$.Command.CommandId' },
        resultPath: `${o.resultPath}.sent`,
      });
      send.addRetry({ errors: SSM_THROTTLING, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2 });
      send.addCatch(o.notManaged, { errors: ['Ssm.InvalidInstanceIdException'], resultPath: `${o.resultPath}.error` });
      if (!o.inBranch) onError(send);
      const wait = new Wait(this, `${prefix}: wait`, { time: WaitTime.duration(pollInterval) });
      const get = new CallAwsService(this, `${prefix}: get result`, {
        service: 'ssm',
        action: 'getCommandInvocation',
        parameters: { 'CommandId.$': `${o.resultPath}.sent.commandId`, 'InstanceId.$': '$.node.instanceId' },
        iamResources: ['*'],
        resultSelector: {
          'status.$': '$.Status',
          'statusDetails.$': '$.StatusDetails',
          'stdout.$': '$.StandardOutputContent',
          'stderr.$': '$.StandardErrorContent',
          'responseCode.$': '$.ResponseCode',
        },
        resultPath: `${o.resultPath}.result`,
      });
      // Right after SendCommand the invocation may not exist yet.
      get.addRetry({
        errors: ['Ssm.InvocationDoesNotExistException'],
        interval: Duration.seconds(2),
        maxAttempts: 5,
        backoffRate: 1.5,
      });
      get.addRetry({ errors: SSM_THROTTLING, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2 });
      if (!o.inBranch) onError(get);
      const count = new Pass(this, `${prefix}: count poll`, {
        parameters: { 'n.$': `States.MathAdd(${o.resultPath}.counter.n, 1)` },
        resultPath: `${o.resultPath}.counter`,
      });
      const timedOut = new Pass(this, `${prefix}: timed out`, {
        result: Result.fromObject({
          status: 'PollTimeout',
          statusDetails: 'no final status before the poll limit',
          stdout: '',
          stderr: '',
        }),
        resultPath: `${o.resultPath}.result`,
      });
      const running = Condition.or(
        ...['Pending', 'InProgress', 'Delayed'].map((s) => Condition.stringEquals(`${o.resultPath}.result.status`, s)),
      );
      const decide = new Choice(this, `${prefix}: finished?`)
        .when(
          Condition.and(running, Condition.numberGreaterThanEquals(`${o.resultPath}.counter.n`, maxPolls)),
          timedOut.next(o.next),
        )
        .when(running, wait)
        .otherwise(o.next);
      stamp.next(send).next(wait).next(get).next(count).next(decide);
      return stamp;
    };

    // --- diagnose ----------------------------------------------------------------------------------
    const checkBranch = (group: CheckGroup, label: string, needsNode: boolean) => {
      const fnc = props.checks.functions[group];
      const run = invoke(
        `Check ${label}`,
        fnc,
        TaskInput.fromObject({
          'node.$': '$.node',
          'cluster.$': '$.cluster',
          'region.$': '$.open.region',
          'entities.$': '$.entities',
        }),
        ['findings'],
      );
      const skip = new Pass(this, `Skip ${label} checks`, { result: Result.fromObject({ findings: [] }) });
      const when = Condition.booleanEquals(`$.open.checks.${group}`, true);
      return new Choice(this, `Run ${label} checks?`)
        .when(needsNode ? Condition.and(when, Condition.isPresent('$.node.instanceId')) : when, run)
        .otherwise(skip);
    };
    const probeNotManaged = new Pass(this, 'Probe: node not managed by SSM', {
      parameters: { probe: { status: 'NotManaged', 'stderr.$': '$.probeRun.error.Cause' } },
    });
    const probeRun = runCommand('Probe', {
      document: '$.open.commands.probeNode',
      parameters: '$.open.commands.probeParameters',
      resultPath: '$.probeRun',
      inBranch: true,
      notManaged: probeNotManaged,
      next: new Pass(this, 'Keep probe result', { parameters: { 'probe.$': '$.probeRun.result' } }),
    });
    const probeBranch = new Choice(this, 'Probe node?')
      .when(
        Condition.and(Condition.booleanEquals('$.open.probe', true), Condition.isPresent('$.node.instanceId')),
        probeRun,
      )
      .otherwise(new Pass(this, 'Skip probe', { result: Result.fromObject({ probe: { status: 'skipped' } }) }));
    const diagnose = onError(
      new Parallel(this, 'Diagnose', { resultPath: '$.diagnosis' })
        .branch(checkBranch('iam', 'IAM', true))
        .branch(checkBranch('ecr', 'ECR', false))
        .branch(checkBranch('network', 'network', true))
        .branch(checkBranch('eks', 'EKS', true))
        .branch(checkBranch('changes', 'recent changes', false))
        .branch(probeBranch),
    );

    // --- decide, approve, act, verify, summarize ---------------------------------------------------------
    const summarize = onError(
      invoke('Summarize', summarizeFn, TaskInput.fromJsonPathAt('$'), SUMMARY_FIELDS, '$.summary'),
    );
    const notify = onError(
      retried(
        new SnsPublish(this, 'Notify', {
          topic: props.topic,
          subject: JsonPath.stringAt('$.summary.subject'),
          message: TaskInput.fromJsonPathAt('$.summary.message'),
          resultPath: JsonPath.DISCARD,
        }),
      ),
    );
    summarize.next(notify).next(new Succeed(this, 'Incident closed'));

    const decideTask = onError(
      invoke(
        'Decide',
        decideFn,
        TaskInput.fromJsonPathAt('$'),
        ['decision', 'actions', 'reasons', 'recommendations', 'findings', 'nodeAction'],
        '$.plan',
      ),
    );

    const checkRepair = onError(
      invoke(
        'Check repair',
        verifyFn,
        TaskInput.fromObject({
          'incidentKey.$': '$.incidentKey',
          'class.$': '$.class',
          'actionSentAt.$': '$.action.sentAt',
          'verifyProbe.$': '$.verifyProbe.result',
        }),
        ['verified', 'reason', 'nextStep'],
        '$.verification',
      ),
    );
    checkRepair.next(summarize);
    const verifyProbe = runCommand('Verify probe', {
      document: '$.open.commands.probeNode',
      parameters: '$.open.commands.probeParameters',
      resultPath: '$.verifyProbe',
      inBranch: false,
      notManaged: new Pass(this, 'Verify probe: node not managed').next(summarize),
      next: checkRepair,
    });
    const verifyWindow = new Wait(this, 'Wait verification window', {
      time: WaitTime.duration(props.verificationWindow ?? Duration.minutes(2)),
    });
    verifyWindow.next(verifyProbe);
    const repairToVerify = new Choice(this, 'Repair to verify?')
      .when(
        Condition.and(
          Condition.stringEquals('$.action.result.status', 'Success'),
          Condition.stringEquals('$.plan.nodeAction.id', 'repair-pause-image'),
        ),
        verifyWindow,
      )
      .otherwise(summarize);
    const act = runCommand('Act', {
      document: '$.plan.nodeAction.documentName',
      parameters: '$.plan.nodeAction.parameters',
      resultPath: '$.action',
      inBranch: false,
      notManaged: new Pass(this, 'Node not managed by SSM').next(summarize),
      next: repairToVerify,
    });

    const requestApproval = retried(
      new LambdaInvoke(this, 'Request approval', {
        lambdaFunction: requestFn,
        integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
        payload: TaskInput.fromObject({
          taskToken: JsonPath.taskToken,
          'incidentId.$': '$.incidentId',
          'class.$': '$.class',
          'cluster.$': '$.cluster',
          'node.$': '$.node',
          'plan.$': '$.plan',
          'executionArn.$': '$$.Execution.Id',
        }),
        taskTimeout: Timeout.duration(approvalTimeout),
        resultPath: '$.approval',
        retryOnServiceExceptions: false,
      }),
      ['Lambda.TooManyRequestsException'],
    );
    const expired = new Pass(this, 'Approval expired', {
      result: Result.fromObject({ approved: false, reason: 'no answer before the approval deadline' }),
      resultPath: '$.approval',
    }).next(summarize);
    // Catches are tried in order: no answer by the deadline is not a failure, just no action.
    requestApproval.addCatch(expired, { errors: ['States.Timeout'], resultPath: '$.approvalError' });
    onError(requestApproval);
    requestApproval.next(
      new Choice(this, 'Approved?')
        .when(Condition.booleanEquals('$.approval.approved', true), act)
        .otherwise(summarize),
    );

    decideTask.next(
      new Choice(this, 'Act, ask or report?')
        .when(
          Condition.and(
            Condition.stringEquals('$.plan.decision', 'act'),
            Condition.isPresent('$.plan.nodeAction.documentName'),
          ),
          act,
        )
        .when(
          Condition.and(
            Condition.stringEquals('$.plan.decision', 'approve'),
            Condition.isPresent('$.plan.nodeAction.documentName'),
          ),
          requestApproval,
        )
        .otherwise(summarize),
    );
    diagnose.next(decideTask);

    // --- open, gate, resolve node -------------------------------------------------------------------------
    const resolve = retried(
      new LambdaInvoke(this, 'Resolve node', {
        lambdaFunction: props.checks.resolveNode,
        payload: TaskInput.fromObject({ 'node.$': '$.open.node' }),
        // The function's result is the node context itself.
        payloadResponseOnly: true,
        resultPath: '$.node',
        retryOnServiceExceptions: false,
      }),
    );
    const nodeNotFound = new Pass(this, 'Node not found', { result: Result.fromObject({}), resultPath: '$.node' }).next(
      diagnose,
    );
    resolve.addCatch(nodeNotFound, { errors: ['NodeNotFoundError'], resultPath: '$.resolveError' });
    onError(resolve);
    resolve.next(diagnose);

    const start = new Pass(this, 'Start', {
      parameters: { 'arn.$': '$$.Execution.Id', 'startedAt.$': '$$.Execution.StartTime' },
      resultPath: '$.execution',
    });
    const open = onError(
      invoke(
        'Open incident',
        openFn,
        TaskInput.fromObject({ 'incident.$': '$', 'executionId.$': '$$.Execution.Id' }),
        ['duplicate', 'gate', 'history', 'node', 'checks', 'probe', 'region', 'openedAt'],
        '$.open',
      ),
    );
    // The probe document and its parameters, stamped into the state once.
    const documents = new Pass(this, 'Note probe command', {
      parameters: { probeNode: docs.probeNode.ref, probeParameters: { 'Region.$': 'States.Array($.open.region)' } },
      resultPath: '$.open.commands',
    });
    start
      .next(open)
      .next(
        new Choice(this, 'Already running?')
          .when(
            Condition.booleanEquals('$.open.duplicate', true),
            new Succeed(this, 'Duplicate: another execution handles this incident'),
          )
          .otherwise(documents),
      );
    documents.next(
      new Choice(this, 'Node known?')
        .when(Condition.isString('$.open.node'), resolve)
        .otherwise(new Pass(this, 'No node', { result: Result.fromObject({}), resultPath: '$.node' }).next(diagnose)),
    );

    const logGroup = new LogGroup(this, 'ExecutionLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(start),
      timeout: Duration.hours(6),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: true },
    });
    props.nodeCommands.grantSendCommand(
      stateMachine,
      ['probeNode', 'repairPauseImage', 'collectLogs', 'restartRuntime'],
      config.clusters.map((c) => c.name),
    );
    Validations.of(stateMachine).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions log delivery and X-Ray actions, and ssm:GetCommandInvocation, do not support resource-level permissions.',
    });
    Validations.of(stateMachine).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:${nagRegion(stack)}:<AWS::AccountId>:instance/*]`,
      reason:
        'Node instance ids are not known at deploy time; SendCommand on instances is conditioned on the eks:cluster-name tag of the configured clusters.',
    });
    for (const f of [
      openFn,
      decideFn,
      verifyFn,
      summarizeFn,
      requestFn,
      ...Object.values(props.checks.functions),
      props.checks.resolveNode,
    ]) {
      // LambdaInvoke grants invoke on the function and its versions (":*").
      Validations.of(stateMachine).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${stack.getLogicalId((f as IFunction).node.defaultChild as never)}.Arn>:*]`,
        reason: 'Invoking any version of pod-doctor’s own workflow function.',
      });
    }
    const kmsReason =
      'Publishing to the KMS-encrypted topic: grantPublish adds kms:GenerateDataKey* on the topic key only.';
    for (const who of [stateMachine.role, requestFn.role as IRole]) {
      Validations.of(who).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
        reason: kmsReason,
      });
    }
    this.stateMachine = stateMachine;

    // An execution that fails, times out or is aborted outside the Catch path still reaches a human.
    new Rule(this, 'ExecutionFailedRule', {
      description: 'pod-doctor: notify when an incident workflow execution fails, times out or is aborted',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: { status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [stateMachine.stateMachineArn] },
      },
      targets: [new SnsTopic(props.topic, { deadLetterQueue: props.deliveryDeadLetterQueue })],
    });
  }
}

/** Explicit Retry on throttling and transient service errors. */
function retried<T extends TaskStateBase>(task: T, errors: string[] = THROTTLING): T {
  task.addRetry({ errors, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2, jitterStrategy: undefined });
  return task;
}

/** How cdk-nag prints a region in a finding id. */
function nagRegion(stack: Stack): string {
  return Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
}
