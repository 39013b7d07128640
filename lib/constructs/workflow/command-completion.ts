import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { COMMAND_WAIT_PREFIX } from '../../../lambdas/core/contract/incident-table.js';
import {
  COMMAND_INVOCATION_STATUS_CHANGE,
  FINAL_INVOCATION_STATUSES,
} from '../../../lambdas/core/door/command-events.js';
import { createDeadLetterQueue } from '../dead-letter-queue.js';
import type { NodeCommands } from '../node-commands.js';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';
import type { WorkflowFunctionSettings } from './workflow-function.js';

/** Props of {@link CommandCompletion}. */
export interface CommandCompletionProps extends WorkflowFunctionSettings {
  /** The table the rendezvous lives in (COMMAND# items only). */
  readonly incidentTable: ITableV2;
  /** pod-doctor's SSM documents: the rule matches their commands only. */
  readonly nodeCommands: NodeCommands;
}

/**
 * Node commands end the workflow's wait by event, not by polling: "Door: await command"
 * (waitForTaskToken) hands the command-wait function its task token, and a rule on Run Command's
 * "EC2 Command Invocation Status-change Notification" events (source aws.ssm, final statuses,
 * pod-doctor's documents only) hands it the command's final status; the second of the two resumes
 * the execution (lambdas/aws/workflow/command-wait.ts). A lost event costs time, never the run:
 * the await times out at the command's budget and the door checks the command once.
 */
export class CommandCompletion extends Construct {
  readonly function: IFunction;
  readonly rule: Rule;
  /** Events the function could not take (the waiting execution ends its wait by its timeout instead). */
  readonly deadLetterQueue: IQueue;

  constructor(scope: Construct, id: string, props: CommandCompletionProps) {
    super(scope, id);
    const deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    const fn = new PodDoctorFunction(this, 'CommandWaitFunction', {
      entry: lambdaEntry('command-wait'),
      description: "pod-doctor: resume the workflow when a node command's completion event arrives",
      logRetention: props.logRetention,
      timeout: Duration.seconds(30),
      deadLetterQueue,
    });
    props.configStore.attach(fn);
    // The rendezvous items only (COMMAND#<command id>): token and status, each set by this function.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [props.incidentTable.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${COMMAND_WAIT_PREFIX}*`] } },
      }),
    );
    this.rule = new Rule(this, 'StatusChangeRule', {
      description: "pod-doctor: a node command's final status resumes the incident workflow waiting for it",
      eventPattern: {
        source: ['aws.ssm'],
        detailType: [COMMAND_INVOCATION_STATUS_CHANGE],
        detail: {
          status: [...FINAL_INVOCATION_STATUSES],
          'document-name': props.nodeCommands.names.map((n) => props.nodeCommands.documents[n].ref),
        },
      },
      targets: [new LambdaFunction(fn, { deadLetterQueue, retryAttempts: 4, maxEventAge: Duration.minutes(30) })],
    });
    this.function = fn;
    this.deadLetterQueue = deadLetterQueue;
  }

  /**
   * Lets the function resume `stateMachine`'s tasks (states:SendTaskSuccess on it). A policy of its own:
   * the state machine depends on the function (its Task invokes it), the function must not depend on it.
   */
  grantResume(stateMachine: IStateMachine): Policy {
    const role = this.function.role;
    if (!role) throw new Error('the command-wait function has no role');
    return new Policy(this, 'ResumePolicy', {
      roles: [role],
      statements: [
        new PolicyStatement({ actions: ['states:SendTaskSuccess'], resources: [stateMachine.stateMachineArn] }),
      ],
    });
  }
}
