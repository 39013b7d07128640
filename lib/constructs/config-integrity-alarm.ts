import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  CONFIG_INTEGRITY_MISMATCH,
  METRICS_NAMESPACE,
  SERVICE_NAME,
} from '../../lambdas/core/contract/metric-names.js';

/** Props of {@link ConfigIntegrityAlarm}. */
export interface ConfigIntegrityAlarmProps {
  /** Where the alarm notifies. */
  readonly topic: ITopic;
}

/**
 * Alarms when a function read a configuration document whose hash is not the version this deployment
 * pinned (someone other than the deployment wrote the `CONFIG` row): the function ran observe-only.
 */
export class ConfigIntegrityAlarm extends Construct {
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: ConfigIntegrityAlarmProps) {
    super(scope, id);
    this.alarm = new Alarm(this, 'Alarm', {
      alarmDescription:
        'pod-doctor: a function read a configuration document whose hash is not the version this deployment pinned (someone else wrote the CONFIG row); it ran in observe mode for every class. Redeploy the stack and find who wrote the row (CloudTrail data events of the table)',
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: CONFIG_INTEGRITY_MISMATCH,
        dimensionsMap: { service: SERVICE_NAME },
        period: Duration.minutes(5),
        statistic: 'Sum',
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarm.addAlarmAction(new SnsAction(props.topic));
  }
}
