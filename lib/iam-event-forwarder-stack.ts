import { Arn, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { DeadLetterAlarms } from './constructs/dead-letter-alarms.js';
import { createDeadLetterQueue } from './constructs/dead-letter-queue.js';
import { Notifications } from './constructs/notifications.js';
import { CLOUDTRAIL_RULES } from './event-patterns.js';
import { IAM_EVENTS_REGION } from './regions.js';

/** EventBridge allows at most this many targets per rule. */
const MAX_TARGETS_PER_RULE = 5;

/** The name of the account's forwarder stack: one per account (it serves every Region listed). */
export function iamEventForwarderStackName(account: string): string {
  return `PodDoctorIamEvents-${account}`;
}

/** Props of {@link IamEventForwarderStack}. */
export interface IamEventForwarderStackProps extends Omit<StackProps, 'env'> {
  /** Account of the pod-doctor stacks (the forwarder runs in the same account). */
  readonly account: string;
  /** Regions pod-doctor runs in (other than us-east-1): each default event bus receives the IAM events. */
  readonly targetRegions: readonly string[];
  /**
   * Addresses told when forwarding fails (the forwarder's dead-letter queue alarm): a topic of this
   * stack, in us-east-1, because an alarm notifies a topic of its own Region (each address confirms once).
   * @default - no subscriptions
   */
  readonly notificationEmails?: readonly string[];
}

/**
 * IAM delivers its CloudTrail events to EventBridge in us-east-1 only. This stack, one per account
 * in us-east-1, forwards the IAM events pod-doctor's rules match (same patterns) to the default event
 * bus of every Region pod-doctor runs in, where its rules pick them up as if they had happened there.
 * What it cannot deliver lands in a dead-letter queue whose first message alarms.
 */
export class IamEventForwarderStack extends Stack {
  constructor(scope: Construct, id: string, props: IamEventForwarderStackProps) {
    super(scope, id, {
      stackName: iamEventForwarderStackName(props.account),
      ...props,
      env: { account: props.account, region: IAM_EVENTS_REGION },
    });
    const deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    const buses = props.targetRegions.map((region) =>
      EventBus.fromEventBusArn(
        this,
        `PodDoctorBus-${region}`,
        Arn.format({ service: 'events', region, resource: 'event-bus', resourceName: 'default' }, this),
      ),
    );
    for (const spec of CLOUDTRAIL_RULES.filter((s) => s.usEast1Only)) {
      for (let i = 0; i < buses.length; i += MAX_TARGETS_PER_RULE) {
        const chunk = props.targetRegions.slice(i, i + MAX_TARGETS_PER_RULE);
        new Rule(this, i === 0 ? spec.id : `${spec.id}${i / MAX_TARGETS_PER_RULE}`, {
          description:
            `pod-doctor: forward to ${chunk.join(', ')}: ${spec.description.replace(/^pod-doctor: /, '')}`.slice(
              0,
              512,
            ),
          eventPattern: spec.pattern,
          targets: buses.slice(i, i + MAX_TARGETS_PER_RULE).map((bus) => new EventBusTarget(bus, { deadLetterQueue })),
        });
      }
    }
    const notifications = new Notifications(this, 'Notifications', { emails: props.notificationEmails });
    new DeadLetterAlarms(this, 'DeadLetterAlarms', {
      queues: [
        { id: 'Forwarding', what: 'IAM events the us-east-1 forwarder could not deliver', queue: deadLetterQueue },
        {
          id: 'Delivery',
          what: 'forwarder notifications that could not be delivered',
          queue: notifications.deadLetterQueue,
        },
      ],
      topic: notifications.topic,
    });
  }
}
