import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { EVENTS_STATE_PREFIX, SIGNAL_STATE_PREFIX } from '../../lambdas/core/contract/incident-table.js';
import { applicationLogGroups, dataplaneLogGroup } from '../../lambdas/core/contract/signals.js';
import type { ConfigStore } from './config-store.js';
import { acknowledgeLogGroupArns, acknowledgeTopicKey, acknowledgeWildcardResources } from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';
import { scheduleFunction } from './schedule.js';
import { grantRowWrites } from './table-rows.js';

/** Props of {@link SignalCheck}. */
export interface SignalCheckProps {
  /** Clusters whose signals are checked (same account and region as the stack): the policies name their log groups. */
  readonly clusters: readonly { readonly name: string }[];
  /** Where the check reads the clusters (the deployment's configuration). */
  readonly configStore: ConfigStore;
  /** The incident table: the events reader's state (read) and the signal states (written). */
  readonly incidentTable: ITableV2;
  /** Where a signal going silent or coming back is notified. */
  readonly topic: ITopic;
  readonly logRetention: RetentionDays;
  /**
   * How often the signals are checked. A silence is notified once whatever the interval.
   * @default Duration.hours(1)
   */
  readonly interval?: Duration;
}

/**
 * The signal self-check: per cluster, whether Kubernetes events are readable, the dataplane group
 * carried a kubelet line and the application group aws-node lines in the last 24 h, and a trail
 * delivers CloudTrail events; a metric per signal (`PodDoctor/SignalAlive`, dimensions cluster and
 * signal) and one notification when a signal goes silent or comes back.
 */
export class SignalCheck extends Construct {
  /** The function that checks each cluster's detection signals (every hour). */
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: SignalCheckProps) {
    super(scope, id);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('signal-check'),
      description: 'pod-doctor: are the detection signals of each cluster alive (events, logs, CloudTrail)',
      logRetention: props.logRetention,
      timeout: Duration.minutes(2),
      synchronousOnly: true,
      environment: {
        INCIDENT_TABLE_NAME: props.incidentTable.tableName,
        TOPIC_ARN: props.topic.topicArn,
      },
    });
    this.grant(fn, props);
    props.configStore.attach(fn);
    scheduleFunction(this, fn, {
      rate: props.interval ?? Duration.hours(1),
      description: 'pod-doctor: check the detection signals of the configured clusters',
      what: 'signal self-check',
      maxEventAge: Duration.minutes(5),
    });
    this.function = fn;
  }

  private grant(fn: PodDoctorFunction, props: SignalCheckProps): void {
    const stack = Stack.of(this);
    const groups = props.clusters.flatMap((c) =>
      [dataplaneLogGroup(c.name), ...applicationLogGroups(c.name)].map(
        (name) =>
          `${stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: name, arnFormat: ArnFormat.COLON_RESOURCE_NAME })}:*`,
      ),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ['logs:FilterLogEvents'], resources: groups }));
    acknowledgeLogGroupArns(fn.role as IRole, groups);
    // DescribeTrails has no resource type; the trail covering the Region may be an organization trail of another account.
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['cloudtrail:DescribeTrails', 'cloudtrail:GetTrailStatus'], resources: ['*'] }),
    );
    acknowledgeWildcardResources(
      fn.role as IRole,
      ['*'],
      'cloudtrail:DescribeTrails has no resource type, and the trail that covers the Region (multi-Region, or an organization trail of the management account) is not known in advance: GetTrailStatus reads whichever it is.',
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem'],
        resources: [props.incidentTable.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${EVENTS_STATE_PREFIX}*`, `${SIGNAL_STATE_PREFIX}*`] },
        },
      }),
    );
    // It reads the events reader's state; it writes only its own statuses.
    grantRowWrites(props.incidentTable, fn, ['signals'], ['dynamodb:UpdateItem']);
    props.topic.grantPublish(fn);
    acknowledgeTopicKey(fn.role as IRole);
  }
}
