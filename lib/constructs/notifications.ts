import { Stack } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { createDeadLetterQueue } from './dead-letter-queue.js';

/** Props of {@link Notifications}. */
export interface NotificationsProps {
  /**
   * Addresses that receive incident summaries and approval requests (each confirms once).
   * @default - no subscriptions; subscribe to the topic yourself
   */
  readonly emails?: readonly string[];
  /**
   * Your own topic; the e-mail addresses are subscribed to it.
   * @default - a new topic encrypted with `encryptionKey`
   */
  readonly topic?: ITopic;
  /**
   * Key of the topic created here (ignored with `topic`).
   * @default - a new customer managed key with rotation
   */
  readonly encryptionKey?: IKey;
}

/**
 * The SNS topic every incident summary, approval request, workflow failure and alarm goes to:
 * encrypted with a customer managed key (so EventBridge and CloudWatch may publish to it), TLS only.
 */
export class Notifications extends Construct {
  readonly topic: ITopic;
  /** Key of the topic created here (absent when the topic was brought): other pod-doctor topics may share it. */
  readonly key?: IKey;
  /** Where EventBridge and SNS put what they could not deliver (events to the topic, emails). */
  readonly deadLetterQueue: IQueue;

  constructor(scope: Construct, id: string, props: NotificationsProps = {}) {
    super(scope, id);
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeliveryDeadLetterQueue');
    let topic = props.topic;
    if (!topic) {
      const key =
        props.encryptionKey ??
        new Key(this, 'Key', { enableKeyRotation: true, description: 'pod-doctor notifications topic' });
      this.key = key;
      topic = this.createTopic(key);
    }
    for (const email of props.emails ?? []) {
      topic.addSubscription(new EmailSubscription(email, { deadLetterQueue: this.deadLetterQueue }));
    }
    this.topic = topic;
  }

  private createTopic(key: IKey): ITopic {
    // EventBridge rules (failed executions) and CloudWatch alarms publish to the topic: the AWS
    // managed SNS key cannot grant them, a customer managed key can. Only on behalf of this account's
    // rules and alarms (the topic policy names the one rule that may publish).
    const sameAccount = { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } };
    key.grantEncryptDecrypt(new ServicePrincipal('events.amazonaws.com').withConditions(sameAccount));
    key.grantEncryptDecrypt(new ServicePrincipal('cloudwatch.amazonaws.com').withConditions(sameAccount));
    return new Topic(this, 'Topic', { masterKey: key, enforceSSL: true, displayName: 'pod-doctor' });
  }
}
