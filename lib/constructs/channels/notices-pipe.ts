import { Stack } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { approvalKey, RUN_PREFIX } from '../../../lambdas/core/contract/incident-table.js';
import { NOTICE_DETAIL_TYPE, NOTICE_SOURCE } from '../../../lambdas/core/voices/notice.js';
import { ConfigError } from '../../config.js';
import { acknowledgeEvidenceRead, acknowledgePipeEnrichment, acknowledgeStreamRead } from '../nag.js';
import { lambdaEntry } from '../paths.js';
import { PodDoctorFunction } from '../pod-doctor-function.js';

/** Props of {@link NoticesPipe}. */
export interface NoticesPipeProps {
  /** The incident table, with a `NEW_IMAGE` stream. */
  readonly incidentTable: ITableV2;
  /** Summaries are read from here (`incidents/…/summary.json`). */
  readonly evidenceBucket: IBucket;
  /** Where each notice goes, as a `pod-doctor incident notice` event. */
  readonly bus: IEventBus;
  /** Where records that could not make a notice are kept (after the retries). */
  readonly deadLetterQueue: IQueue;
  readonly logRetention: RetentionDays;
}

/** Stream records: INSERTs of run history rows and of approval rows (the first write of each). */
const FILTERS = [
  { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: RUN_PREFIX }] } } } },
  { eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: approvalKey('').pk }] } } } },
];

/**
 * Incident-table stream → EventBridge pipe (filter: first writes of run and approval rows) →
 * enrichment function (the notice: chat card, pager bodies) → the notices bus. A record the
 * function cannot turn into a notice is retried, then kept in the dead-letter queue.
 */
export class NoticesPipe extends Construct {
  readonly function: PodDoctorFunction;
  readonly pipe: CfnPipe;

  constructor(scope: Construct, id: string, props: NoticesPipeProps) {
    super(scope, id);
    const stream = props.incidentTable.tableStreamArn;
    if (!stream)
      throw new ConfigError([
        'channels: the incident table has no stream; bring a table with a NEW_IMAGE stream, or let pod-doctor create it',
      ]);
    this.function = new PodDoctorFunction(this, 'Enrich', {
      entry: lambdaEntry('notices'),
      description: 'pod-doctor: incident-table rows → notices for chat and pagers',
      environment: { EVIDENCE_BUCKET: props.evidenceBucket.bucketName },
      logRetention: props.logRetention,
    });
    acknowledgePipeEnrichment(this.function);
    // Summaries only: GetObject under incidents/ (no listing; the row names the key).
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.evidenceBucket.arnForObjects('incidents/*')],
      }),
    );
    acknowledgeEvidenceRead(this.function.role ?? this.function, props.evidenceBucket, 'incidents');
    const role = this.pipeRole(stream, props);
    this.pipe = new CfnPipe(this, 'Pipe', {
      description: 'pod-doctor: notices of runs and approvals for chat and pagers',
      roleArn: role.roleArn,
      source: stream,
      sourceParameters: {
        filterCriteria: { filters: FILTERS.map((f) => ({ pattern: JSON.stringify(f) })) },
        dynamoDbStreamParameters: {
          startingPosition: 'LATEST',
          batchSize: 1,
          maximumRetryAttempts: 10,
          // One day: the stream keeps records 24 hours.
          maximumRecordAgeInSeconds: 86_400,
          deadLetterConfig: { arn: props.deadLetterQueue.queueArn },
        },
      },
      enrichment: this.function.functionArn,
      target: props.bus.eventBusArn,
      targetParameters: {
        eventBridgeEventBusParameters: { source: NOTICE_SOURCE, detailType: NOTICE_DETAIL_TYPE },
      },
    });
    this.pipe.node.addDependency(role);
  }

  /** Read the stream, invoke the enrichment, put events on the bus, keep what failed. */
  private pipeRole(stream: string, props: NoticesPipeProps): Role {
    const role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
      }),
      description: 'pod-doctor notices pipe',
    });
    role.addToPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [stream],
      }),
    );
    // ListStreams has no resource type (Service Authorization Reference): it cannot be scoped.
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
    acknowledgeStreamRead(role);
    role.addToPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.function.functionArn] }),
    );
    props.bus.grantPutEventsTo(role);
    props.deadLetterQueue.grantSendMessages(role);
    return role;
  }
}
