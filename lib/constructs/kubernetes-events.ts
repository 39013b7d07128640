import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { VpcPlacement } from './cluster-vpc.js';
import type { ConfigStore } from './config-store.js';
import { grantClusterAccess } from './kubernetes-access.js';
import { acknowledgeEvidencePrefix, acknowledgeTopicKey } from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';
import { scheduleFunction } from './schedule.js';
import { grantRowWrites } from './table-rows.js';

/** Props of {@link KubernetesEvents}. */
export interface KubernetesEventsProps {
  /** Clusters whose Warning events are read (same account and region as the stack). */
  readonly clusters: readonly { readonly name: string }[];
  /** The incident table: incidents (open or join), the reader's per-cluster state and counted events. */
  readonly incidentTable: ITableV2;
  /** Events that cannot be read are kept under `rejected/`. */
  readonly evidenceBucket: IBucket;
  /** The incident workflow the reader starts. */
  readonly workflow: IStateMachine;
  /** Repeats of one (cluster, scope, class) within this window join one incident; an event counts once in it. */
  readonly incidentWindow: Duration;
  /** DynamoDB TTL of incident rows, in days. */
  readonly historyRetentionDays: number;
  readonly logRetention: RetentionDays;
  /**
   * How long each invocation watches. The schedule runs every minute (EventBridge Scheduler's
   * shortest rate), so a watch of most of that minute reads events within seconds of their creation;
   * a shorter one costs less and waits longer for events that arrive between watches.
   * @default Duration.seconds(50)
   */
  readonly watchDuration?: Duration;
  /** Where the reader reads the clusters and the trusted sandbox images (the deployment's configuration). */
  readonly configStore: ConfigStore;
  /**
   * The topic of the one notice per cluster, rank and hour that says what the limits dropped.
   * @default no notice (what was dropped is still kept under `dropped/` and counted)
   */
  readonly topic?: ITopic;
  /**
   * The VPC the reader runs in: it then reads only the clusters of that VPC (`CLUSTER_REACH`).
   * @default - outside any VPC: the clusters without `vpc`
   */
  readonly placement?: VpcPlacement;
}

/** The function's timeout beyond its watch (final batches, saving the state). */
const TIMEOUT_MARGIN = Duration.seconds(25);

/**
 * Kubernetes Warning events as a detection source: every minute, one invocation watches the Warning
 * events of every configured cluster (from the resourceVersion the last one saved) and sends them
 * through the ingest path's catalogue and incident keys. Its role: access entries mapped to the
 * read-only group (list and watch events, get nodes), the incident table's open-or-join writes and
 * its own state items only (leading keys), StartExecution on the workflow, rejected records.
 */
export class KubernetesEvents extends Construct {
  /** The function that watches the clusters' Warning events (every minute). */
  readonly function: IFunction;

  constructor(scope: Construct, id: string, props: KubernetesEventsProps) {
    super(scope, id);
    const watch = props.watchDuration ?? Duration.seconds(50);
    const fn = new PodDoctorFunction(this, 'Function', {
      entry: lambdaEntry('kubernetes-events'),
      description: 'pod-doctor: Kubernetes Warning events of the configured clusters (watched each minute)',
      logRetention: props.logRetention,
      timeout: watch.plus(TIMEOUT_MARGIN),
      memorySize: 256,
      synchronousOnly: true,
      environment: {
        INCIDENT_TABLE_NAME: props.incidentTable.tableName,
        INCIDENT_WINDOW_MINUTES: String(props.incidentWindow.toMinutes()),
        HISTORY_RETENTION_DAYS: String(props.historyRetentionDays),
        EVIDENCE_BUCKET_NAME: props.evidenceBucket.bucketName,
        WORKFLOW_ARN: props.workflow.stateMachineArn,
        WATCH_SECONDS: String(watch.toSeconds()),
        ...(props.topic ? { TOPIC_ARN: props.topic.topicArn } : {}),
      },
    });
    props.placement?.place(fn, true);
    grantClusterAccess(this, fn, props.clusters);
    props.configStore.attach(fn);
    // Its own state, the incidents it opens and the hourly budgets it spends (tenant signals per namespace);
    // it deletes only the events it counted (never history).
    grantRowWrites(
      props.incidentTable,
      fn,
      ['incidents', 'eventsReader', 'budgets'],
      ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    );
    grantRowWrites(props.incidentTable, fn, ['eventsReader'], ['dynamodb:DeleteItem']);
    props.workflow.grantStartExecution(fn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [props.evidenceBucket.arnForObjects('rejected/*'), props.evidenceBucket.arnForObjects('dropped/*')],
      }),
    );
    acknowledgeEvidencePrefix(fn.role as IRole, props.evidenceBucket, 'rejected', 'Unreadable Kubernetes events');
    acknowledgeEvidencePrefix(
      fn.role as IRole,
      props.evidenceBucket,
      'dropped',
      'Events not corroborated or over a budget',
    );
    if (props.topic) {
      props.topic.grantPublish(fn);
      acknowledgeTopicKey(fn.role as IRole);
    }
    scheduleFunction(this, fn, {
      rate: Duration.minutes(1),
      description: 'pod-doctor: watch the Warning events of the configured clusters',
      what: 'Kubernetes events reader',
      maxEventAge: Duration.minutes(1),
    });
    this.function = fn;
  }
}
