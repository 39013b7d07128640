import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { CLUSTER_READ_FAILED, METRICS_NAMESPACE, SERVICE_NAME } from '../../lambdas/core/contract/metric-names.js';

/** Props of {@link ClusterReadAlarm}. */
export interface ClusterReadAlarmProps {
  /** Where the alarm notifies. */
  readonly topic: ITopic;
  /**
   * Consecutive 5-minute periods with a failed read of the same cluster before it alarms (the sweep
   * runs every 5 minutes: this many sweeps in a row).
   * @default 3
   */
  readonly periods?: number;
}

/**
 * One alarm per cluster whose Kubernetes API pod-doctor keeps failing to read (sweep or inspection),
 * as one resource at any number of clusters: a Metrics Insights query grouped by cluster, each
 * cluster a contributor that alarms and notifies on its own (multi-time-series alarm:
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/multi-time-series-alarm.html;
 * SNS notifications at contributor level:
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Acting_Alarm_Changes.html).
 * Limits: a query evaluates at most 500 time series (PARTIAL_DATA beyond: 500 failing clusters) and
 * an account has 200 Metrics Insights alarms by default.
 */
export class ClusterReadAlarm extends Construct {
  readonly alarm: Alarm;

  constructor(scope: Construct, id: string, props: ClusterReadAlarmProps) {
    super(scope, id);
    const periods = props.periods ?? 3;
    this.alarm = new Alarm(this, 'Alarm', {
      alarmDescription: `pod-doctor: the Kubernetes API of a cluster could not be read ${periods} times in a row (sweep or inspection); the contributor names the cluster, the sweep's log says why (endpoint access, access entry, RBAC)`,
      metric: new MathExpression({
        expression: `SELECT SUM(${CLUSTER_READ_FAILED}) FROM SCHEMA("${METRICS_NAMESPACE}", cluster, service) WHERE service = '${SERVICE_NAME}' GROUP BY cluster`,
        usingMetrics: {},
        period: Duration.minutes(5),
      }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarm.addAlarmAction(new SnsAction(props.topic));
  }
}
