import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { FilterPattern, LogGroup, type RetentionDays, SubscriptionFilter } from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { createDeadLetterQueue } from './dead-letter-queue.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** One cluster whose node logs pod-doctor watches. */
export interface WatchedCluster {
  /** EKS cluster name. */
  readonly name: string;
  /** Log groups (dataplane, ipamd, ...) to subscribe. */
  readonly logGroups: readonly string[];
}

/** Props of {@link Detection}. */
export interface DetectionProps {
  /** Clusters whose log groups get a subscription filter. */
  readonly clusters: readonly WatchedCluster[];
  /** Incident table: aggregation and dedupe happen there with conditional writes. */
  readonly incidentTable: ITableV2;
  /** Retention of the ingest function's logs. */
  readonly logRetention: RetentionDays;
  /** Minutes within which repeats of one (cluster, scope, class) join the same incident. */
  readonly incidentWindowMinutes: number;
  /**
   * The workflow each new incident starts.
   * @default - incidents are recorded but no workflow is started
   */
  readonly workflow?: IStateMachine;
}

/**
 * Turns node log lines into incidents: a CloudWatch Logs subscription on each configured log group
 * feeds the ingest function, which classifies, aggregates, deduplicates and starts the workflow.
 * What it cannot process lands in a dead-letter queue, never dropped.
 */
export class Detection extends Construct {
  readonly ingestFunction: IFunction;
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
        INCIDENT_WINDOW_MINUTES: String(props.incidentWindowMinutes),
        ...(props.workflow ? { WORKFLOW_ARN: props.workflow.stateMachineArn } : {}),
      },
    });
    props.incidentTable.grantReadWriteData(ingest);
    props.workflow?.grantStartExecution(ingest);
    this.ingestFunction = ingest;

    for (const cluster of props.clusters) {
      for (const [i, name] of cluster.logGroups.entries()) {
        const logGroup = LogGroup.fromLogGroupName(this, `${cluster.name}LogGroup${i}`, name);
        new SubscriptionFilter(this, `${cluster.name}Subscription${i}`, {
          logGroup,
          destination: new LambdaDestination(ingest),
          filterPattern: FilterPattern.anyTerm(...CANDIDATE_TERMS),
        });
      }
    }
  }
}

/**
 * Terms a line must contain to reach the ingest function. Kept broad on purpose: the classifier
 * decides, the filter only keeps healthy chatter away.
 */
export const CANDIDATE_TERMS = [
  'FailedCreatePodSandBox',
  'sandbox',
  'ErrImagePull',
  'ImagePullBackOff',
  'Failed to pull image',
  'failed to pull',
  'failed to assign an IP',
  'InsufficientCidrBlocks',
  'InsufficientFreeAddressesInSubnet',
  'resource temporarily unavailable',
  'no space left on device',
  'ipamd',
  'UnauthorizedOperation',
] as const;
