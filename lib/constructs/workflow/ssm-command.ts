import { Duration } from 'aws-cdk-lib';
import {
  Choice,
  Condition,
  type IChainable,
  type INextable,
  Pass,
  Result,
  type State,
  StateMachineFragment,
  type TaskStateBase,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { CallAwsService } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { SSM_TRANSIENT } from './tasks.js';

/** Props of {@link SsmCommand}. */
export interface SsmCommandProps {
  /** JSONPath of the document name in the state input. */
  readonly documentPath: string;
  /** JSONPath of the document parameters in the state input. */
  readonly parametersPath: string;
  /** JSONPath under which the command keeps `sentAt`, `counter`, `sent` and `result`. */
  readonly resultPath: string;
  /**
   * ARNs of the documents this step may send. The instance half of the grant (tag-conditioned)
   * comes from `NodeCommands.grantSendCommand`.
   */
  readonly documentArns: readonly string[];
  /** Where the workflow goes when the node is not managed by SSM (`InvalidInstanceIdException`). */
  readonly notManaged: IChainable;
  /**
   * Where any other error of the send and poll steps goes (caught into `$.error`).
   * @default - errors propagate, e.g. to the Parallel state that contains this command
   */
  readonly onError?: IChainable;
  /**
   * Builds the first state in place of the stamp (the state is named `<id>: gate`): a Task that
   * writes `sentAt` and `counter.n = 0` under `resultPath` and may refuse to let the command go
   * (its own Catch), e.g. the gate right before Act.
   * @default - a Pass state stamps the time and the poll counter
   */
  readonly gate?: (scope: Construct, id: string) => TaskStateBase;
  /**
   * Where a final status goes instead of `next()` when a condition holds (tried in order): a branch
   * on the poll loop's own Choice costs no extra state transition.
   * @default - every final status continues with next()
   */
  readonly finalBranches?: readonly { readonly when: Condition; readonly next: IChainable }[];
  /**
   * Interval between GetCommandInvocation polls.
   * @default Duration.seconds(5)
   */
  readonly pollInterval?: Duration;
  /**
   * Polls before the command counts as timed out (result status `PollTimeout`).
   * @default 60
   */
  readonly maxPolls?: number;
}

/**
 * One node command as a state-machine fragment: stamp → SendCommand → wait → GetCommandInvocation
 * → count → finished? (loop while Pending/InProgress/Delayed, `PollTimeout` after `maxPolls`).
 * States are named `<id>: …`. A final status (Success, Failed, Undeliverable, TimedOut ...) or a
 * poll timeout continues with whatever `next()` chains after the fragment.
 */
export class SsmCommand extends StateMachineFragment {
  readonly startState: State;
  readonly endStates: INextable[];

  constructor(scope: Construct, id: string, props: SsmCommandProps) {
    super(scope, id);
    const path = props.resultPath;
    const stamp =
      props.gate?.(this, 'gate') ??
      new Pass(this, 'stamp', {
        parameters: { 'sentAt.$': '$$.State.EnteredTime', counter: { n: 0 } },
        resultPath: path,
      });
    const send = this.sendCommand(props);
    const wait = new Wait(this, 'wait', { time: WaitTime.duration(props.pollInterval ?? Duration.seconds(5)) });
    const get = this.getResult(props);
    const count = new Pass(this, 'count poll', {
      parameters: { 'n.$': `States.MathAdd(${path}.counter.n, 1)` },
      resultPath: `${path}.counter`,
    });
    const timedOut = new Pass(this, 'timed out', {
      result: Result.fromObject({
        status: 'PollTimeout',
        statusDetails: 'no final status before the poll limit',
        stdout: '',
        stderr: '',
      }),
      resultPath: `${path}.result`,
    });
    const running = Condition.or(
      ...['Pending', 'InProgress', 'Delayed'].map((s) => Condition.stringEquals(`${path}.result.status`, s)),
    );
    const finished = new Choice(this, 'finished?')
      .when(
        Condition.and(running, Condition.numberGreaterThanEquals(`${path}.counter.n`, props.maxPolls ?? 60)),
        timedOut,
      )
      .when(running, wait);
    for (const b of props.finalBranches ?? []) finished.when(b.when, b.next);
    stamp.next(send).next(wait).next(get).next(count).next(finished);
    this.startState = stamp;
    // The poll timeout and the Choice's default (a final status) both continue with next().
    this.endStates = finished.afterwards({ includeOtherwise: true }).endStates;
    this.prefixStates(`${id}: `);
  }

  private sendCommand(props: SsmCommandProps): TaskStateBase {
    const send = new CallAwsService(this, 'send command', {
      service: 'ssm',
      action: 'sendCommand',
      parameters: {
        'DocumentName.$': props.documentPath,
        'InstanceIds.$': 'States.Array($.node.instanceId)',
        'Parameters.$': props.parametersPath,
        // Documents update with UpdateMethod NewVersion: run the version this deployment wrote, by name.
        DocumentVersion: '$LATEST',
        Comment: 'pod-doctor',
      },
      iamResources: [...props.documentArns],
      iamAction: 'ssm:SendCommand',
      resultSelector: { 'commandId.$': '$.Command.CommandId' },
      resultPath: `${props.resultPath}.sent`,
    });
    send.addRetry({ errors: SSM_TRANSIENT, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2 });
    send.addCatch(props.notManaged, {
      errors: ['Ssm.InvalidInstanceIdException'],
      resultPath: `${props.resultPath}.error`,
    });
    if (props.onError) send.addCatch(props.onError, { resultPath: '$.error' });
    return send;
  }

  private getResult(props: SsmCommandProps): TaskStateBase {
    const get = new CallAwsService(this, 'get result', {
      service: 'ssm',
      action: 'getCommandInvocation',
      parameters: { 'CommandId.$': `${props.resultPath}.sent.commandId`, 'InstanceId.$': '$.node.instanceId' },
      iamResources: ['*'],
      resultSelector: {
        'status.$': '$.Status',
        'statusDetails.$': '$.StatusDetails',
        'stdout.$': '$.StandardOutputContent',
        'stderr.$': '$.StandardErrorContent',
        'responseCode.$': '$.ResponseCode',
      },
      resultPath: `${props.resultPath}.result`,
    });
    // Right after SendCommand the invocation may not exist yet.
    get.addRetry({
      errors: ['Ssm.InvocationDoesNotExistException'],
      interval: Duration.seconds(2),
      maxAttempts: 5,
      backoffRate: 1.5,
    });
    get.addRetry({ errors: SSM_TRANSIENT, interval: Duration.seconds(2), maxAttempts: 4, backoffRate: 2 });
    if (props.onError) get.addCatch(props.onError, { resultPath: '$.error' });
    return get;
  }
}
