import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { IncidentBudget } from '../aws/ingest/incident-budget.js';
import { IncidentStore } from '../aws/ingest/incident-store.js';
import { TopicNotices } from '../aws/ingest/topic-notices.js';
import { WorkflowStarter } from '../aws/ingest/workflow-starter.js';
import { type ClusterEventsOutcome, type EventsDeps, readAllClusters } from '../aws/kubernetes/events-service.js';
import { EventsStateStore } from '../aws/kubernetes/events-state.js';
import { ClusterApi } from '../aws/readers/kubernetes/cluster-api.js';
import { endpointCache } from '../aws/readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../aws/readers/kubernetes/token.js';
import { configLocation, readConfig, untilSucceeded } from '../aws/runtime/config-store.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { RejectStore } from '../aws/runtime/evidence-store.js';
import { logger, metrics, withPowertools } from '../aws/runtime/powertools.js';
import { DEFAULT_INGEST_LIMITS } from '../core/incident/ingest-limits.js';
import '../core/text/zod-english.js';
import { clustersServed } from '../core/contract/cluster-reach.js';

/**
 * The EventBridge Scheduler invocation: the schedule sets no input, and nothing in the event decides
 * what the reader does (the configured clusters do).
 */
export const eventsEventSchema = z.unknown();

/**
 * The reader's metrics per cluster: one single metric each, each with its `cluster` dimension (a
 * single metric publishes, and forgets its dimensions, on its first addMetric: reused for six
 * metrics, five lost the cluster).
 */
export function publishOutcomes(outcomes: readonly ClusterEventsOutcome[]): void {
  for (const o of outcomes) {
    if (o.skipped) continue;
    // A metric per signal and cluster (the self-check's alarm and the dashboards read it).
    const values: Record<string, number> = {
      EventsReadable: o.readable ? 1 : 0,
      EventsReceived: o.counts.received,
      EventsClassified: o.counts.classified,
      EventsRejected: o.counts.rejected,
      EventsRelisted: o.counts.relists,
      EventsApiErrors: o.counts.apiErrors,
      // Tenant rank (provenance.ts): what the pods' status backed, what it did not, what was over budget.
      EventsCorroborated: o.counts.corroborated,
      EventsUncorroborated: o.counts.uncorroborated,
      EventsOverBudget: o.counts.overBudget,
      IncidentsDropped: o.counts.dropped,
    };
    for (const [name, value] of Object.entries(values)) {
      const m = metrics.singleMetric();
      m.addDimension('cluster', o.cluster);
      m.addMetric(name, MetricUnit.Count, value);
    }
    if (o.counts.rejected > 0) logger.warn('events rejected and kept', { cluster: o.cluster, keys: o.rejectKeys });
    if (!o.readable) logger.warn('events not readable', { cluster: o.cluster, error: o.error });
  }
  logger.info('kubernetes events read', { clusters: outcomes });
}

/** Kubernetes Warning events of every configured cluster → incidents, through the ingest path's catalogue. */
export const createHandler = (deps: () => Promise<EventsDeps>) =>
  withPowertools(eventsEventSchema, async (_event, context) => {
    const outcomes = await readAllClusters(await deps(), context.awsRequestId);
    publishOutcomes(outcomes);
    return { clusters: outcomes };
  });

/**
 * The function's clients, from its environment, and the clusters and trusted images of the
 * deployment's configuration (built on the first invocation; a failed build is tried again).
 */
async function liveDeps(): Promise<EventsDeps> {
  const env = readEnvironment('kubernetes-events');
  const eks = new EKSClient({ maxAttempts: 6 });
  const endpoint = endpointCache(eks, env.AWS_REGION);
  const tokens = new EksTokenCache(() => eks.config.credentials());
  const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  const config = await readConfig(ddb, configLocation());
  const windowMs = env.INCIDENT_WINDOW_MINUTES * 60_000;
  const limits = config.ingestLimits ?? DEFAULT_INGEST_LIMITS;
  return {
    // Every rank's hourly budgets, as on the log path (tenant signals per namespace: provenance.ts).
    budget: new IncidentBudget(ddb, env.INCIDENT_TABLE_NAME, limits),
    limits,
    notices: env.TOPIC_ARN ? new TopicNotices(new SNSClient({}), env.TOPIC_ARN) : undefined,
    // A cluster with kubernetesApi: false has no access entry: its events are not read.
    clusters: clustersServed(config.clusters, env.CLUSTER_REACH),
    api: async (cluster) => new ClusterApi(await endpoint(cluster), tokens),
    state: new EventsStateStore(ddb, env.INCIDENT_TABLE_NAME),
    incidents: new IncidentStore(ddb, {
      tableName: env.INCIDENT_TABLE_NAME,
      windowMs,
      retentionDays: env.HISTORY_RETENTION_DAYS,
    }),
    workflow: new WorkflowStarter(new SFNClient({}), env.WORKFLOW_ARN),
    rejects: new RejectStore(new S3Client({}), env.EVIDENCE_BUCKET_NAME),
    now: Date.now,
    windowMs,
    trustedSandboxImages: config.trustedSandboxImages ?? [],
    reader: { watchSeconds: env.WATCH_SECONDS },
  };
}

export const handler = createHandler(untilSucceeded(liveDeps));
