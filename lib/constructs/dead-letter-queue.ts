import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeDeadLetterQueue } from './nag.js';

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
