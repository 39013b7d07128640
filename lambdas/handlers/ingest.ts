import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import { AccountFactsLookup } from '../aws/ingest/account-facts.js';
import { IncidentBudget } from '../aws/ingest/incident-budget.js';
import { IncidentStore } from '../aws/ingest/incident-store.js';
import { type IngestDeps, type IngestOutcome, ingest } from '../aws/ingest/ingest-service.js';
import { TopicNotices } from '../aws/ingest/topic-notices.js';
import { WorkflowStarter } from '../aws/ingest/workflow-starter.js';
import { ChangeIndex } from '../aws/readers/account/change-index.js';
import { configLoader, untilSucceeded } from '../aws/runtime/config-store.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { RejectStore } from '../aws/runtime/evidence-store.js';
import { logger, metrics, tracer, withPowertools } from '../aws/runtime/powertools.js';
import { prepareAnchorIndex } from '../core/detect/prefilter.js';
import { DEFAULT_INGEST_LIMITS } from '../core/incident/ingest-limits.js';
import { ingestConfig } from '../core/workflow/ingest-config.js';
import '../core/text/zod-english.js';

/**
 * The two events the function is subscribed to, by their envelope only: a CloudWatch Logs
 * subscription payload (`awslogs.data`, read with a size limit by the domain) or an EventBridge
 * event (CloudTrail API calls). What is inside is read record by record; unreadable records are kept.
 */
export const ingestEventSchema = z.union([
  z.looseObject({ awslogs: z.looseObject({ data: z.string() }) }),
  z.looseObject({ source: z.string(), 'detail-type': z.string(), detail: z.unknown() }),
]);

function publish(outcome: IngestOutcome): void {
  const s = outcome.stats;
  metrics.addMetric('RecordsReceived', MetricUnit.Count, s.received);
  metrics.addMetric('RecordsClassified', MetricUnit.Count, s.classified);
  metrics.addMetric('RecordsUnknown', MetricUnit.Count, s.unknown);
  metrics.addMetric('RecordsRejected', MetricUnit.Count, s.rejected);
  metrics.addMetric('CloudTrailOutOfScope', MetricUnit.Count, s.outOfScope);
  metrics.addMetric('IncidentsOpened', MetricUnit.Count, outcome.incidentsOpened.length);
  metrics.addMetric('IncidentsJoined', MetricUnit.Count, outcome.incidentsJoined.length);
  for (const [cls, n] of Object.entries(s.byClass)) {
    const m = metrics.singleMetric();
    m.addDimension('class', cls);
    m.addMetric('FailuresByClass', MetricUnit.Count, n);
  }
  // A class storm (many nodes, subnets or images at once) alarms on this (OperationsDashboard).
  for (const [cls, n] of Object.entries(outcome.openedByClass)) {
    const m = metrics.singleMetric();
    m.addDimension('class', cls);
    m.addMetric('IncidentsOpenedByClass', MetricUnit.Count, n);
  }
  // What the limits kept from evaluation (per delivery, per cluster and hour): counted here, kept under
  // dropped/, noticed once per cluster and hour.
  metrics.addMetric('IncidentsDropped', MetricUnit.Count, outcome.incidentsDropped);
  metrics.addMetric('ExecutionsDeferred', MetricUnit.Count, outcome.executionsDeferred);
  metrics.addMetric('IncidentsReevaluated', MetricUnit.Count, outcome.reevaluated.length);
  if (outcome.incidentsDropped > 0)
    logger.warn('incident candidates over the limits: kept, not evaluated', {
      dropped: outcome.incidentsDropped,
      key: outcome.droppedKey,
    });
  if (s.rejected > 0) logger.warn('records rejected and kept', { rejected: s.rejected, key: outcome.rejectKey });
  logger.info('ingested', { ...outcome });
}

/** CloudWatch Logs subscription payloads and EventBridge CloudTrail events → incidents. */
export const createHandler = (deps: () => Promise<IngestDeps>) =>
  withPowertools(
    ingestEventSchema,
    async (event, context) => {
      const outcome = await ingest(event, context.awsRequestId, await deps());
      publish(outcome);
      return outcome;
    },
    { storedMetrics: true },
  );

const env = readEnvironment('ingest');
const ddb = DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({})), {
  marshallOptions: { removeUndefinedValues: true },
});
const deploymentConfig = configLoader(() => ddb);

/** The function's clients, from its environment, and the deployment's configuration (read once). */
async function liveDeps(): Promise<IngestDeps> {
  const config = await deploymentConfig();
  const limits = config.ingestLimits ?? DEFAULT_INGEST_LIMITS;
  const sns = env.TOPIC_ARN ? tracer.captureAWSv3Client(new SNSClient({})) : undefined;
  return {
    budget: new IncidentBudget(ddb, env.INCIDENT_TABLE_NAME, limits),
    limits,
    notices: sns && env.TOPIC_ARN ? new TopicNotices(sns, env.TOPIC_ARN) : undefined,
    incidents: new IncidentStore(ddb, {
      tableName: env.INCIDENT_TABLE_NAME,
      windowMs: env.INCIDENT_WINDOW_MINUTES * 60_000,
      retentionDays: env.HISTORY_RETENTION_DAYS,
    }),
    rejects: new RejectStore(tracer.captureAWSv3Client(new S3Client({})), env.EVIDENCE_BUCKET_NAME),
    workflow: env.WORKFLOW_ARN
      ? new WorkflowStarter(tracer.captureAWSv3Client(new SFNClient({})), env.WORKFLOW_ARN)
      : undefined,
    config: ingestConfig(config),
    now: Date.now,
    facts: new AccountFactsLookup(
      tracer.captureAWSv3Client(new EKSClient({ maxAttempts: 6 })),
      new Ec2QueryClient(),
      config.clusters.map((c) => c.name),
      Date.now,
    ),
    changes: new ChangeIndex(ddb, env.INCIDENT_TABLE_NAME),
  };
}

export const handler = createHandler(untilSucceeded(liveDeps));

// Every invocation reads log lines: the pre-filter's index is built in the init phase, not at the first event.
prepareAnchorIndex();
