import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
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
   * Your own topic; the e-mail addresses are subscribed to it. Its policy (and its key's) must let
   * `cloudwatch.amazonaws.com` and `events.amazonaws.com` publish: an imported topic's policy is yours.
   * @default - a new topic encrypted with `encryptionKey`
   */
  readonly topic?: ITopic;
  /**
   * Key of the topic created here (ignored with `topic`). A key created in the same app gets the
   * statements below; an imported key's policy must grant them itself.
   * @default - a new customer managed key with rotation
   */
  readonly encryptionKey?: IKey;
}

/** The key actions a service needs to publish to an encrypted topic (SNS guide, link below). */
const PUBLISH_KEY_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey*'];

/**
 * The SNS topic every incident summary, approval request, workflow failure and alarm goes to:
 * encrypted with a customer managed key, TLS only. The topic policy (`enforceSSL` creates one, which
 * replaces SNS's default policy) and the key policy admit exactly the two AWS services that publish:
 * - CloudWatch alarms of this account: `aws:SourceAccount` and `aws:SourceArn` (an alarm of this
 *   account and Region) on the topic and on the key, both of which CloudWatch supports;
 * - EventBridge rules: on the topic, each rule by its ARN (`aws:SourceArn`, added by the rule's
 *   target); on the key without conditions, because EventBridge's KMS requests for an encrypted
 *   topic carry no `aws:SourceAccount`/`aws:SourceArn` (not supported there: a condition on them
 *   silently drops every event).
 * https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services
 * https://aws.github.io/modern-data-architecture-accelerator/typedocs/functions/_aws-mdaa_cloudwatch-constructs.grantCloudWatchAlarmsTopicAccess.html
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
    const alarms = alarmsOfThisAccount(Stack.of(this));
    const cloudwatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccount',
        principals: [cloudwatch],
        actions: PUBLISH_KEY_ACTIONS,
        resources: ['*'],
        conditions: alarms,
      }),
    );
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'EventBridgeRulesNamedByTheTopicPolicy',
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: PUBLISH_KEY_ACTIONS,
        resources: ['*'],
      }),
    );
    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true, displayName: 'pod-doctor' });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisAccount',
        principals: [cloudwatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: alarms,
      }),
    );
    return topic;
  }
}

/** Conditions that admit CloudWatch on behalf of the alarms of this account and Region only. */
function alarmsOfThisAccount(stack: Stack): Record<string, Record<string, string>> {
  return {
    StringEquals: { 'aws:SourceAccount': stack.account },
    ArnLike: {
      'aws:SourceArn': stack.formatArn({
        service: 'cloudwatch',
        resource: 'alarm',
        resourceName: '*',
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    },
  };
}
