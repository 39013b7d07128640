import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Choice,
  Condition,
  type IChainable,
  IntegrationPattern,
  JsonPath,
  Pass,
  type State,
  TaskInput,
  type TaskStateBase,
  Timeout,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import type { PlannedRequest, Slot } from '../../../lambdas/core/door/action-request.js';
import { at, type DoorReturn, WORKFLOW_ERRORS } from '../../../lambdas/core/workflow/execution-state.js';
import { routedTask, type VpcRoute } from './routes.js';
import { DOOR_TRANSIENT, retried } from './tasks.js';

/** Props of {@link DoorStates}. */
export interface DoorStatesProps {
  /** The door function: the gate, the only mutating clients. */
  readonly door: IFunction;
  /**
   * The door's copies in the VPCs of clusters whose API server is reached from inside (the same gate,
   * grants scoped to those clusters).
   * @default - none
   */
  readonly doorInVpcs?: readonly VpcRoute[];
  /** The approval request function (the door's one approval wait). */
  readonly requestApproval: IFunction;
  /** The command-wait function: "Door: await command" leaves its task token there (command-completion.ts). */
  readonly commandWait: IFunction;
  readonly approvalTimeout: Duration;
  /** Interval of the door's poll loop. */
  readonly pollInterval: Duration;
  /** Polls before a node command counts as timed out: the probe's, and the longest action's. */
  readonly polls: { readonly probe: number; readonly action: number };
  /** Catches every error of a task into the failure path. */
  readonly onError: <T extends TaskStateBase>(s: T) => T;
}

/** A request for the door: the slot it fills, where the workflow goes after, and the request. */
export interface DoorCallProps {
  readonly slot: Slot;
  readonly returnTo: DoorReturn;
  /** The planned request: a JSONPath to one of Decide's (`at('plan', 'requests', …)`), or a fixed one. */
  readonly request: string | (Omit<PlannedRequest, 'action'> & { readonly action: Record<string, unknown> });
}

/**
 * The door as states: every action of the workflow (and the node probe) enters here through a
 * "<caller>: request" Pass, and leaves by "Door: back to?". One Task ("Door") gates and acts, or
 * sends a command and polls it ("Door: wait"), or stops for the one approval wait ("Door: ask");
 * nothing else in the graph can change a node, the account or the cluster.
 */
export class DoorStates {
  /** Where every door call enters: the door's Task, or with VPC copies "Door: which VPC?". */
  readonly door: State;
  /** Where each caller's continuation is registered. */
  readonly backTo: Choice;
  private readonly scope: Construct;

  constructor(scope: Construct, p: DoorStatesProps) {
    this.scope = scope;
    const routed = routedTask(scope, 'Door', p.door, p.doorInVpcs ?? [], (id, fn) => doorTask(scope, id, fn, p));
    this.door = routed.entry;
    this.backTo = new Choice(scope, 'Door: back to?');
    const wait = new Wait(scope, 'Door: wait', { time: WaitTime.duration(p.pollInterval) }).next(this.door);
    const ask = this.ask(p);
    const next = new Choice(scope, 'Door: next?')
      .when(Condition.stringEquals(at('door', 'run', 'step'), 'await'), this.awaitCommand(p))
      .when(Condition.stringEquals(at('door', 'run', 'step'), 'wait'), wait)
      .when(Condition.stringEquals(at('door', 'run', 'step'), 'ask'), ask)
      .otherwise(this.backTo);
    for (const task of routed.tasks) task.next(next);
  }

  /**
   * "Door: await command": no poll waits while a command runs. The command-wait function keeps the
   * task token under the command's id; Run Command's status-change event resumes the task when the
   * command ends. No event before the longest command's budget ends (a lost event): the timeout is
   * caught and the door checks the command once (GetCommandInvocation), counting the time waited as
   * polls; a command it still finds running within its budget continues in the poll loop ("Door: wait").
   */
  private awaitCommand(p: DoorStatesProps): TaskStateBase {
    const task = retried(
      new LambdaInvoke(this.scope, 'Door: await command', {
        lambdaFunction: p.commandWait,
        integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
        payload: TaskInput.fromObject({
          taskToken: JsonPath.taskToken,
          'commandId.$': at('door', 'run', 'pending', 'commandId'),
          'instanceId.$': at('door', 'run', 'pending', 'instanceId'),
        }),
        // The longest command's budget (a probe's is shorter: the door's check then finds it timed out).
        taskTimeout: Timeout.duration(Duration.seconds(p.pollInterval.toSeconds() * p.polls.action)),
        resultPath: JsonPath.DISCARD,
        retryOnServiceExceptions: false,
      }),
      ['Lambda.TooManyRequestsException', 'Lambda.ServiceException', 'Lambda.SdkClientException'],
    );
    // Catches are tried in order: no event in time goes to the door's one check; anything else fails.
    task.addCatch(this.door, { errors: [WORKFLOW_ERRORS.timeout], resultPath: JsonPath.DISCARD });
    p.onError(task);
    task.next(this.door);
    return task;
  }

  /** "Door: ask": the one approval wait (task token, deadline); the answer goes back to the door. */
  private ask(p: DoorStatesProps): TaskStateBase {
    const request = retried(
      new LambdaInvoke(this.scope, 'Door: ask', {
        lambdaFunction: p.requestApproval,
        integrationPattern: IntegrationPattern.WAIT_FOR_TASK_TOKEN,
        payload: TaskInput.fromObject({
          taskToken: JsonPath.taskToken,
          'incidentId.$': at('incidentId'),
          'class.$': at('class'),
          'cluster.$': at('cluster'),
          'node.$': at('node'),
          'ask.$': at('door', 'run', 'ask'),
          'findings.$': at('plan', 'findings'),
          'reasons.$': at('plan', 'reasons'),
          // The cause and the lines that show it (every workflow input has both): the approver's evidence.
          'cause.$': at('cause'),
          'samples.$': at('samples'),
          'executionArn.$': '$$.Execution.Id',
        }),
        taskTimeout: Timeout.duration(p.approvalTimeout),
        resultPath: at('door', 'approval'),
        retryOnServiceExceptions: false,
      }),
      ['Lambda.TooManyRequestsException'],
    );
    // No answer by the deadline is an answer: no. The door records it (and does nothing).
    const expired = new Pass(this.scope, 'Door: no answer', {
      parameters: {
        approved: false,
        reason: 'no answer before the approval deadline',
        'slot.$': at('door', 'run', 'slot'),
        'digest.$': at('door', 'run', 'ask', 'digest'),
      },
      resultPath: at('door', 'approval'),
    }).next(this.door);
    // Catches are tried in order: the expiry first, every other error into the failure path.
    request.addCatch(expired, { errors: [WORKFLOW_ERRORS.timeout], resultPath: '$.approvalError' });
    p.onError(request);
    request.next(this.door);
    return request;
  }

  /** A caller's "<name>: request" Pass into the door. */
  call(id: string, c: DoorCallProps): IChainable {
    const request = typeof c.request === 'string' ? { 'request.$': c.request } : { request: c.request };
    return new Pass(this.scope, id, {
      // Each call's id: its ledger row, the same on every retry of the door's Task (never a second gate).
      parameters: { 'id.$': 'States.UUID()', slot: c.slot, returnTo: c.returnTo, ...request },
      resultPath: at('door', 'call'),
    }).next(this.door);
  }

  /** Registers where the workflow continues after the door for calls that name `returnTo`. */
  continueWith(returnTo: DoorReturn, next: IChainable): void {
    this.backTo.when(Condition.stringEquals(at('door', 'call', 'returnTo'), returnTo), next);
  }
}

/** The door's Task ("Door", or its copy in a VPC): the only states that reach a mutating function. */
function doorTask(scope: Construct, id: string, fn: IFunction, p: DoorStatesProps): TaskStateBase {
  return p.onError(
    retried(
      new LambdaInvoke(scope, id, {
        lambdaFunction: fn,
        payload: TaskInput.fromObject({
          'door.$': at('door'),
          incident: {
            'id.$': at('incidentId'),
            'key.$': at('incidentKey'),
            'class.$': at('class'),
            'cluster.$': at('cluster'),
          },
          'execution.$': at('execution', 'arn'),
          'region.$': at('open', 'region'),
          'account.$': at('open', 'account'),
          polls: { probe: p.polls.probe, action: p.polls.action },
          pollSeconds: p.pollInterval.toSeconds(),
        }),
        payloadResponseOnly: true,
        resultPath: at('door'),
        retryOnServiceExceptions: false,
      }),
      DOOR_TRANSIENT,
    ),
  );
}

/** A probe-node request for the resolved node (the probe's findings become the node's evidence). */
export function probeRequest(description: string): DoorCallProps['request'] {
  return {
    action: { kind: 'probe-node', node: { 'instanceId.$': at('node', 'instanceId') } },
    disposition: 'auto',
    description,
    reason: 'a read: the node probe',
  };
}
