import { Duration, Names } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DeadLetterAlarms } from '../dead-letter-alarms.js';
import { createDeadLetterQueue } from '../dead-letter-queue.js';
import { acknowledgeSqsEventSource } from '../nag.js';
import { grantRowWrites } from '../table-rows.js';
import { type WorkflowFunctionSettings, workflowFunction } from './workflow-function.js';

/** Props of {@link ChatApprovals}. */
export interface ChatApprovalsProps extends WorkflowFunctionSettings {
  /** Table holding pending approvals (and their task tokens). */
  readonly incidentTable: ITableV2;
  /** The HMAC key that signs approvals (the chat token's key is the link's). */
  readonly signingKey: ISecret;
  /** Where the dead-letter alarm notifies. */
  readonly topic: ITopic;
}

/**
 * Where the chat card's Approve and Reject buttons send (an `aws sqs send-message` custom action):
 * an encrypted queue, its consumer (checks the signed token, then the review page's decision path)
 * and a dead-letter queue whose first message alarms.
 */
export class ChatApprovals extends Construct {
  /** The queue the chat custom actions send to. */
  readonly queue: Queue;
  /** Presses Step Functions could not take after the queue's retries. */
  readonly deadLetterQueue: Queue;
  /** The consumer. */
  readonly consumer: IFunction;

  constructor(scope: Construct, id: string, props: ChatApprovalsProps) {
    super(scope, id);
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // A press is answered within seconds or not at all: an approval expires with its deadline anyway.
      retentionPeriod: Duration.hours(1),
      visibilityTimeout: Duration.seconds(60),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 3 },
    });
    const consumer = workflowFunction(
      this,
      'ConsumerFunction',
      'approval-chat',
      'chat approvals (signed, expiring)',
      props,
      {
        APPROVAL_SECRET_ARN: props.signingKey.secretArn,
      },
    );
    // One DynamoDB read, two writes and one Step Functions call per press.
    (consumer.node.defaultChild as CfnFunction).timeout = 10;
    const source = new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true });
    consumer.addEventSource(source);
    acknowledgeSqsEventSource(consumer.node.findChild(`SqsEventSource:${Names.nodeUniqueId(this.queue.node)}`));
    props.signingKey.grantRead(consumer);
    props.incidentTable.grant(consumer, 'dynamodb:GetItem');
    // As the review page: the grant of an approved request's digest, and its approval marked answered.
    grantRowWrites(props.incidentTable, consumer, ['grants'], ['dynamodb:PutItem']);
    grantRowWrites(props.incidentTable, consumer, ['approvals'], ['dynamodb:UpdateItem']);
    this.consumer = consumer;
    new DeadLetterAlarms(this, 'Alarms', {
      queues: [
        { id: 'ChatApprovals', what: 'chat approvals Step Functions could not take', queue: this.deadLetterQueue },
      ],
      topic: props.topic,
    });
  }

  /** Lets the consumer answer the tasks of `stateMachine` (a policy of its own: no dependency cycle). */
  grantResume(stateMachine: IStateMachine): Policy {
    const role = this.consumer.role;
    if (!role) throw new Error('the chat approval consumer has no role');
    return new Policy(this, 'ResumePolicy', {
      roles: [role],
      statements: [
        new PolicyStatement({
          actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
          resources: [stateMachine.stateMachineArn],
        }),
      ],
    });
  }
}
