import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Props of {@link DeadLetterAlarms}. */
export interface DeadLetterAlarmsProps {
  /** Dead-letter queues: construct id, what a message there means, the queue. */
  readonly queues: readonly { readonly id: string; readonly what: string; readonly queue: IQueue }[];
  /** Where the alarms notify. */
  readonly topic: ITopic;
}

/**
 * One alarm per dead-letter queue: a message there is an incident pod-doctor did not process (or a
 * notification nobody received), so the first one alarms instead of waiting 14 days to expire.
 */
export class DeadLetterAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: DeadLetterAlarmsProps) {
    super(scope, id);
    for (const { id: alarmId, what, queue } of props.queues) {
      const alarm = new Alarm(this, alarmId, {
        alarmDescription: `pod-doctor: ${what} landed in a dead-letter queue; read the queue, fix the cause, redrive`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(new SnsAction(props.topic));
      this.alarms.push(alarm);
    }
  }
}
