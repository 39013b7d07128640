import { Duration, Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { type CfnRule, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { FilterPattern, LogGroup, type RetentionDays, SubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { CLOUDTRAIL_RULES } from '../event-patterns.js';
import type { ConfigStore } from './config-store.js';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { eksArn } from './eks-arn.js';
import { LogGroupPrerequisites } from './log-group-prerequisites.js';
import {
  acknowledgeClusterResources,
  acknowledgeDescribeOnly,
  acknowledgeEvidencePrefix,
  acknowledgeTopicKey,
} from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';
import { grantRowWrites } from './table-rows.js';

/** One cluster whose node logs pod-doctor watches. */
export interface WatchedCluster {
  /** EKS cluster name. */
  readonly name: string;
  /** Log groups (dataplane, ipamd, ...) to subscribe. */
  readonly logGroups: readonly string[];
  /**
   * Region of the cluster (its node groups, access entries and add-ons are read there).
   * @default the stack's region
   */
  readonly region?: string;
}

/** Props of {@link Detection}. */
export interface DetectionProps {
  /** Clusters whose log groups get a subscription filter. */
  readonly clusters: readonly WatchedCluster[];
  /** Incident table: aggregation and dedupe happen there with conditional writes. */
  readonly incidentTable: ITableV2;
  /** Evidence bucket: records that cannot be read are kept under `rejected/`. */
  readonly evidenceBucket: IBucket;
  /** Days incident rows are kept (DynamoDB TTL). */
  readonly historyRetentionDays: number;
  /** Where the ingest function reads the log group → cluster map and the trusted sandbox images. */
  readonly configStore: ConfigStore;
  /** Retention of the ingest function's logs. */
  readonly logRetention: RetentionDays;
  /** Minutes within which repeats of one (cluster, scope, class) join the same incident. */
  readonly incidentWindowMinutes: number;
  /**
   * The workflow each new incident starts.
   * @default - incidents are recorded but no workflow is started
   */
  readonly workflow?: IStateMachine;
  /**
   * The topic of the one notice per cluster and hour that says what the limits dropped.
   * @default - no notice (drops are still counted and kept)
   */
  readonly topic?: ITopic;
}

/**
 * Turns node log lines into incidents: a CloudWatch Logs subscription on each configured log group
 * feeds the ingest function, which classifies, aggregates, deduplicates and starts the workflow.
 * What it cannot process lands in a dead-letter queue, never dropped.
 */
export class Detection extends Construct {
  /** The function that classifies log lines and CloudTrail events into incidents. */
  readonly ingestFunction: IFunction;
  /** What the ingest function could not process after its retries (alarmed). */
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: DetectionProps) {
    super(scope, id);
    this.deadLetterQueue = createDeadLetterQueue(this, 'DeadLetterQueue');
    const ingest = new PodDoctorFunction(this, 'Ingest', {
      entry: lambdaEntry('ingest'),
      description: 'pod-doctor: classify node log lines and CloudTrail events into incidents',
      logRetention: props.logRetention,
      timeout: Duration.seconds(60),
      memorySize: 512,
      deadLetterQueue: this.deadLetterQueue,
      onFailure: new SqsDestination(this.deadLetterQueue),
      retryAttempts: 2,
      environment: {
        INCIDENT_TABLE_NAME: props.incidentTable.tableName,
        EVIDENCE_BUCKET_NAME: props.evidenceBucket.bucketName,
        INCIDENT_WINDOW_MINUTES: String(props.incidentWindowMinutes),
        HISTORY_RETENTION_DAYS: String(props.historyRetentionDays),
        ...(props.workflow ? { WORKFLOW_ARN: props.workflow.stateMachineArn } : {}),
        ...(props.topic ? { TOPIC_ARN: props.topic.topicArn } : {}),
      },
    });
    props.configStore.attach(ingest);
    // Open-or-join is a conditional PutItem plus UpdateItem; change-index entries are plain PutItems.
    // Tenant text arrives here: it writes incidents, budgets and the change index, never a grant, evidence or config.
    grantRowWrites(
      props.incidentTable,
      ingest,
      ['incidents', 'budgets', 'changes'],
      ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    );
    grantScopeLookups(ingest, props.clusters);
    grantKeepAndNotice(ingest, props);
    props.workflow?.grantStartExecution(ingest);
    this.ingestFunction = ingest;

    for (const spec of CLOUDTRAIL_RULES) {
      const rule = new Rule(this, spec.id, {
        description: spec.description,
        eventPattern: spec.pattern,
        targets: [
          new LambdaFunction(ingest, {
            deadLetterQueue: this.deadLetterQueue,
            retryAttempts: 4,
            maxEventAge: Duration.hours(2),
          }),
        ],
      });
      // Rules on IAM events (usEast1Only) are created everywhere: outside us-east-1 they never match,
      // which is the truth of where IAM delivers, and keeps the template region-agnostic.
      if (spec.readOnlyCalls)
        (rule.node.defaultChild as CfnRule).state = 'ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS';
    }

    const logGroupNames = props.clusters.flatMap((c) => c.logGroups);
    const prerequisites = logGroupNames.length
      ? new LogGroupPrerequisites(this, 'LogGroupPrerequisites', {
          logGroupNames,
          destination: ingest,
          logRetention: props.logRetention,
        })
      : undefined;
    const ready = prerequisites?.ready(this, 'LogGroupsReady');
    for (const cluster of props.clusters) {
      for (const [i, name] of cluster.logGroups.entries()) {
        const logGroup = LogGroup.fromLogGroupName(this, `${cluster.name}LogGroup${i}`, name);
        const filter = new SubscriptionFilter(this, `${cluster.name}Subscription${i}`, {
          logGroup,
          destination: new LambdaDestination(ingest),
          // Derived from the signature catalogue (lambdas/core/detect/filter-pattern.ts): one filter, one slot.
          filterPattern: FilterPattern.literal(SUBSCRIPTION_FILTER_PATTERN),
        });
        // The group exists and has a free filter slot before CloudFormation subscribes to it.
        if (ready) filter.node.addDependency(ready);
      }
    }
  }
}

/**
 * The subscription filter pattern: the OR of the terms every catalogue signature names, at most
 * 1,024 characters (synthesis fails with FilterPatternError beyond that).
 */
export const SUBSCRIPTION_FILTER_PATTERN = buildFilterPattern();

/**
 * What the ingest function reads to scope CloudTrail events: the node and aws-node roles of the
 * configured clusters (node groups, access entries, vpc-cni add-on, Pod Identity), the ECR/S3
 * endpoint security groups, and the instance behind a network interface.
 */
function grantScopeLookups(fn: IFunction, clusters: readonly WatchedCluster[]): void {
  const stack = Stack.of(fn);
  const role = fn.role as IRole;
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ec2:DescribeVpcEndpoints', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeInstances'],
      resources: ['*'],
    }),
  );
  acknowledgeDescribeOnly(role);
  if (!clusters.length) return;
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['eks:ListNodegroups', 'eks:ListAccessEntries', 'eks:ListPodIdentityAssociations'],
      resources: clusters.map((c) => eksArn(stack, 'cluster', c.name, c.region)),
    }),
  );
  const scoped = [
    ['eks:DescribeNodegroup', 'nodegroup'],
    ['eks:DescribeAccessEntry', 'access-entry'],
    ['eks:DescribeAddon', 'addon'],
    ['eks:DescribePodIdentityAssociation', 'podidentityassociation'],
  ] as const;
  for (const [action, resource] of scoped) {
    const arns = clusters.map((c) => eksArn(stack, resource, `${c.name}/*`, c.region));
    fn.addToRolePolicy(new PolicyStatement({ actions: [action], resources: arns }));
    acknowledgeClusterResources(role, resource, arns);
  }
}

/**
 * What the ingest function keeps and sends besides incidents: rejected records and the candidates over
 * the limits (PutObject only: grantPut would add s3:Abort* and the object-lock actions), and the one
 * notice per cluster and hour of what the limits dropped.
 */
function grantKeepAndNotice(ingest: IFunction, props: DetectionProps): void {
  ingest.addToRolePolicy(
    new PolicyStatement({
      actions: ['s3:PutObject'],
      resources: [props.evidenceBucket.arnForObjects('rejected/*'), props.evidenceBucket.arnForObjects('dropped/*')],
    }),
  );
  acknowledgeEvidencePrefix(ingest.role as IRole, props.evidenceBucket, 'rejected', 'Rejected records');
  acknowledgeEvidencePrefix(ingest.role as IRole, props.evidenceBucket, 'dropped', 'Candidates over the limits');
  if (props.topic) {
    props.topic.grantPublish(ingest);
    acknowledgeTopicKey(ingest.role as IRole);
  }
}
