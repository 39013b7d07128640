import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule } from 'aws-cdk-lib/aws-events';
import { SnsTopic } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import {
  DefinitionBody,
  Fail,
  type IStateMachine,
  JsonPath,
  LogLevel,
  StateMachine,
  StateMachineType,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { DynamoAttributeValue, DynamoPutItem, SnsPublish } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

/** Props of {@link IncidentWorkflow}. */
export interface IncidentWorkflowProps {
  /** Incident history table. */
  readonly incidentTable: ITableV2;
  /** Topic for summaries and failure notices. */
  readonly topic: ITopic;
  /** Dead-letter queue for EventBridge deliveries to the topic. */
  readonly deliveryDeadLetterQueue: IQueue;
  /** Parameter whose value `on` stops every action. */
  readonly killSwitch: IStringParameter;
  /** Retention of the execution log group. */
  readonly logRetention: RetentionDays;
}

/**
 * The incident workflow (Step Functions, Standard): records the incident and notifies. The
 * diagnose / decide / act / verify stages are wired in by the workflow issue.
 */
export class IncidentWorkflow extends Construct {
  readonly stateMachine: IStateMachine;

  constructor(scope: Construct, id: string, props: IncidentWorkflowProps) {
    super(scope, id);
    const notifyFailure = new SnsPublish(this, 'Notify workflow failure', {
      topic: props.topic,
      subject: 'pod-doctor: incident workflow failed',
      message: TaskInput.fromJsonPathAt('$'),
      resultPath: JsonPath.DISCARD,
    }).next(new Fail(this, 'Workflow failed'));

    const record = new DynamoPutItem(this, 'Record incident', {
      table: props.incidentTable,
      item: {
        pk: DynamoAttributeValue.fromString(JsonPath.format('INCIDENT#{}', JsonPath.stringAt('$.incidentKey'))),
        sk: DynamoAttributeValue.fromString(JsonPath.executionId),
        class: DynamoAttributeValue.fromString(JsonPath.stringAt('$.class')),
        startedAt: DynamoAttributeValue.fromString(JsonPath.executionStartTime),
      },
      resultPath: JsonPath.DISCARD,
    });
    const notify = new SnsPublish(this, 'Notify incident', {
      topic: props.topic,
      subject: JsonPath.format('pod-doctor: {} incident', JsonPath.stringAt('$.class')),
      message: TaskInput.fromJsonPathAt('$'),
      resultPath: JsonPath.DISCARD,
    });
    for (const task of [record, notify]) {
      task.addRetry({ errors: ['ThrottlingException', 'States.Timeout'], maxAttempts: 3, backoffRate: 2 });
      task.addCatch(notifyFailure, { resultPath: '$.error' });
    }

    const logGroup = new LogGroup(this, 'ExecutionLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(record.next(notify)),
      timeout: Duration.hours(6),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: true },
    });
    props.killSwitch.grantRead(stateMachine);
    Validations.of(stateMachine).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Step Functions log delivery (logs:CreateLogDelivery and friends) and X-Ray tracing actions do not support resource-level permissions.',
    });
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
