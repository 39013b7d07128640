import { Arn, Stack, type StackProps } from 'aws-cdk-lib';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { EventBus as EventBusTarget } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { createDeadLetterQueue } from './constructs/dead-letter-queue.js';
import { CLOUDTRAIL_RULES } from './event-patterns.js';
import { IAM_EVENTS_REGION } from './regions.js';

/** Props of {@link IamEventForwarderStack}. */
export interface IamEventForwarderStackProps extends Omit<StackProps, 'env'> {
  /** Account of the pod-doctor stack (the forwarder runs in the same account). */
  readonly account: string;
  /** Region of the pod-doctor stack, whose default event bus receives the forwarded IAM events. */
  readonly targetRegion: string;
}

/**
 * IAM delivers its CloudTrail events to EventBridge in us-east-1 only. This stack, deployed in
 * us-east-1, forwards the IAM events pod-doctor's rules match (same patterns) to the default event
 * bus of the region pod-doctor runs in, where its rules pick them up as if they had happened there.
 */
export class IamEventForwarderStack extends Stack {
  constructor(scope: Construct, id: string, props: IamEventForwarderStackProps) {
    super(scope, id, { ...props, env: { account: props.account, region: IAM_EVENTS_REGION } });
    const bus = EventBus.fromEventBusArn(
      this,
      'PodDoctorRegionBus',
      Arn.format(
        { service: 'events', region: props.targetRegion, resource: 'event-bus', resourceName: 'default' },
        this,
      ),
    );
    const deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    for (const spec of CLOUDTRAIL_RULES.filter((s) => s.usEast1Only)) {
      new Rule(this, spec.id, {
        description:
          `pod-doctor: forward to ${props.targetRegion}: ${spec.description.replace(/^pod-doctor: /, '')}`.slice(
            0,
            512,
          ),
        eventPattern: spec.pattern,
        targets: [new EventBusTarget(bus, { deadLetterQueue })],
      });
    }
  }
}
