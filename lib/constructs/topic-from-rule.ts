import type { IRule, IRuleTarget, RuleTargetConfig, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import {
  addToDeadLetterQueueResourcePolicy,
  bindBaseTargetConfig,
  type TargetBaseProps,
} from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';

/** Options of {@link TopicFromRule}: what is published, and how long EventBridge keeps trying. */
export interface TopicFromRuleOptions extends Omit<TargetBaseProps, 'deadLetterQueue'> {
  /**
   * What the rule publishes.
   * @default - the whole event
   */
  readonly message?: RuleTargetInput;
}

/**
 * An SNS target whose topic-policy grant names the one rule that may publish (aws:SourceArn), where
 * the stock SnsTopic target lets any EventBridge rule of any account publish. Undeliverable events
 * go to the dead-letter queue.
 */
export class TopicFromRule implements IRuleTarget {
  constructor(
    private readonly topic: ITopic,
    private readonly deadLetterQueue: IQueue,
    private readonly options: TopicFromRuleOptions = {},
  ) {}

  bind(rule: IRule): RuleTargetConfig {
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { ArnEquals: { 'aws:SourceArn': rule.ruleArn } },
      }),
    );
    addToDeadLetterQueueResourcePolicy(rule, this.deadLetterQueue);
    const { message, ...retry } = this.options;
    return {
      ...bindBaseTargetConfig({ ...retry, deadLetterQueue: this.deadLetterQueue }),
      arn: this.topic.topicArn,
      ...(message ? { input: message } : {}),
    };
  }
}
