import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** A dead-letter queue: encrypted, TLS only, messages kept the SQS maximum of 14 days. */
export function createDeadLetterQueue(scope: Construct, id: string): Queue {
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  acknowledgeDeadLetterQueue(queue);
  return queue;
}

/** The two findings every dead-letter queue raises, acknowledged with the reason. */
export function acknowledgeDeadLetterQueue(queue: Queue): void {
  const reason = 'This queue is itself a dead-letter queue; a DLQ of a DLQ would only move the problem.';
  Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason });
  Validations.of(queue).acknowledge({ id: 'Serverless::Serverless-SQSRedrivePolicy', reason });
}
