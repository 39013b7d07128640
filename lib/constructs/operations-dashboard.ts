import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarm,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import { METRICS_NAMESPACE, METRICS_SERVICE } from './pod-doctor-function.js';

/** Props of {@link OperationsDashboard}. */
export interface OperationsDashboardProps {
  readonly stateMachine: IStateMachine;
  /** Where the alarms notify. */
  readonly alarmTopic: ITopic;
  /** How long an approval waits: requests older than this have an answer or expired. */
  readonly approvalTimeout: Duration;
  /** pod-doctor's other alarms, shown in the status widget. */
  readonly alarms: readonly IAlarm[];
  /**
   * Incidents of one class opened within 15 minutes that make a storm (many nodes, subnets or images
   * at once: a shared cause, not a node to repair).
   * @default 10
   */
  readonly classStormThreshold?: number;
}

/** Metric math alarms take at most 10 metrics: the class storm alarms cover the classes in groups this size. */
const ALARM_METRICS = 10;

/**
 * One CloudWatch dashboard per deployment — incidents by class and outcome, time to verified repair
 * (p50, p90), actions and approvals, the signals of each cluster, free IPv4 addresses and free /28
 * blocks per subnet — and alarms on verification failures and on a class storm. Dimension values
 * (classes, subnets, clusters) are found with SEARCH, so new ones appear without a deployment.
 */
export class OperationsDashboard extends Construct {
  /** The CloudWatch dashboard. */
  readonly dashboard: Dashboard;
  /** Alarms when a repair does not verify. */
  readonly verificationFailures: Alarm;
  /** One alarm per class: 10 or more incidents of the class opened within 15 minutes. */
  readonly classStorms: readonly Alarm[];

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    this.verificationFailures = this.alarm('VerificationFailuresAlarm', props, {
      description: 'pod-doctor: a repair or change was not verified (or rolled back); the incident needs a human',
      metric: own('VerificationFailures', 'Sum', Duration.minutes(5)),
      threshold: 1,
    });
    this.classStorms = this.classStormAlarms(props);
    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(1) });
    this.dashboard.addWidgets(
      graph('Incidents by class (per hour)', [search('Incidents', ['class'], 'Sum', Duration.hours(1))]),
      graph('Incident outcomes (per hour)', [search('IncidentOutcomes', ['outcome'], 'Sum', Duration.hours(1))]),
      graph('Time to verified repair (seconds)', [
        own('TimeToVerifiedRepair', 'p50', Duration.hours(1)),
        own('TimeToVerifiedRepair', 'p90', Duration.hours(1)),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Actions by status (per hour)', [search('Actions', ['action', 'status'], 'Sum', Duration.hours(1))]),
      graph('Approvals', approvalMetrics(props.approvalTimeout)),
      graph('Workflow executions', [
        props.stateMachine.metricStarted({ period: Duration.hours(1) }),
        props.stateMachine.metricSucceeded({ period: Duration.hours(1) }),
        props.stateMachine.metricFailed({ period: Duration.hours(1) }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Signals per cluster (1 = alive)', [
        search('SignalAlive', ['cluster', 'signal'], 'Minimum', Duration.hours(1)),
      ]),
      graph('Failure lines by class (per 5 minutes)', [
        search('FailuresByClass', ['class'], 'Sum', Duration.minutes(5)),
      ]),
      graph('Incidents opened by class (per 15 minutes)', [
        search('IncidentsOpenedByClass', ['class'], 'Sum', Duration.minutes(15)),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Free IPv4 addresses per subnet', [search('SubnetFreeIps', ['subnet'], 'Minimum', Duration.hours(1))]),
      graph('Free aligned /28 blocks per subnet', [
        search('SubnetFreePrefixBlocks', ['subnet'], 'Minimum', Duration.hours(1)),
      ]),
      new AlarmStatusWidget({
        title: 'pod-doctor alarms',
        alarms: [...props.alarms, this.verificationFailures, ...this.classStorms],
        width: 8,
        height: 6,
      }),
    );
  }

  /** One alarm per group of classes: the most incidents of any one class opened within 15 minutes. */
  private classStormAlarms(props: OperationsDashboardProps): Alarm[] {
    const classes = FAILURE_CLASSES.filter((c) => c !== 'unknown');
    const groups: string[][] = [];
    for (let i = 0; i < classes.length; i += ALARM_METRICS) groups.push(classes.slice(i, i + ALARM_METRICS));
    return groups.map((group, g) =>
      this.alarm(`ClassStormAlarm${g + 1}`, props, {
        description: `pod-doctor: a class storm — ${props.classStormThreshold ?? 10} or more incidents of one class (${group.join(', ')}) opened within 15 minutes: look for a shared cause`,
        metric: new MathExpression({
          expression: `MAX([${group.map((_, i) => `m${i}`).join(', ')}])`,
          usingMetrics: Object.fromEntries(
            group.map((c, i) => [`m${i}`, own('IncidentsOpenedByClass', 'Sum', Duration.minutes(15), { class: c })]),
          ),
          label: 'most incidents of one class',
          period: Duration.minutes(15),
        }),
        threshold: props.classStormThreshold ?? 10,
      }),
    );
  }

  private alarm(
    id: string,
    props: OperationsDashboardProps,
    a: { description: string; metric: IMetric; threshold: number },
  ): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: a.description,
      metric: a.metric,
      threshold: a.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(props.alarmTopic));
    return alarm;
  }
}

/** One of pod-doctor's own metrics (Powertools adds the `service` dimension to each). */
function own(name: string, statistic: string, period: Duration, dimensions: Record<string, string> = {}): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, ...dimensions },
    statistic,
    period,
  });
}

/** Every series of one of pod-doctor's metrics over the given dimensions (one line per value). */
export function search(
  name: string,
  dimensions: readonly string[],
  statistic: string,
  period: Duration,
): MathExpression {
  const schema = [METRICS_NAMESPACE, ...[...dimensions, 'service'].sort()].join(',');
  return new MathExpression({
    expression: `SEARCH('{${schema}} MetricName="${name}" service="${METRICS_SERVICE}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label: '',
    period,
  });
}

/**
 * Approvals asked and answered, and pending: asked minus answered within the approval timeout (an
 * older request has its answer or expired), never below zero.
 */
function approvalMetrics(timeout: Duration): IMetric[] {
  const period = Duration.minutes(Math.max(1, Math.ceil(timeout.toMinutes())));
  const asked = own('ApprovalsRequested', 'Sum', period);
  const approved = own('ApprovalsAnswered', 'Sum', period, { decision: 'approve' });
  const rejected = own('ApprovalsAnswered', 'Sum', period, { decision: 'reject' });
  return [
    asked.with({ label: 'requested' }),
    approved.with({ label: 'approved' }),
    rejected.with({ label: 'rejected' }),
    new MathExpression({
      expression: 'MAX([FILL(asked, 0) - FILL(approved, 0) - FILL(rejected, 0), FILL(asked, 0) * 0])',
      usingMetrics: { asked, approved, rejected },
      label: `pending (requested − answered within ${period.toMinutes()} min)`,
      period,
    }),
  ];
}

function graph(title: string, left: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left, width: 8, height: 6 });
}
