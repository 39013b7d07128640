import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EKSClient } from '@aws-sdk/client-eks';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// zod/mini with English messages (zod-english): a fraction of classic zod's import cost.
import * as z from 'zod/mini';
import { IncidentBudget } from '../aws/ingest/incident-budget.js';
import { IncidentStore } from '../aws/ingest/incident-store.js';
import { WorkflowStarter } from '../aws/ingest/workflow-starter.js';
import { type SweepDeps, type SweepOutcome, sweepClusters } from '../aws/kubernetes/sweep.js';
import { ClusterApi } from '../aws/readers/kubernetes/cluster-api.js';
import { endpointCache } from '../aws/readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../aws/readers/kubernetes/token.js';
import { configLoader } from '../aws/runtime/config-store.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { logger, metrics, withPowertools } from '../aws/runtime/powertools.js';
import { clustersServed } from '../core/contract/cluster-reach.js';
import { CLUSTER_READ_FAILED } from '../core/contract/metric-names.js';
import { DEFAULT_INGEST_LIMITS } from '../core/incident/ingest-limits.js';

const env = readEnvironment('kubernetes-sweep');

const eks = new EKSClient({ maxAttempts: 6 });
const endpoint = endpointCache(eks, env.AWS_REGION);
const tokens = new EksTokenCache(() => eks.config.credentials());
const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
const deploymentConfig = configLoader(() => ddb);

/** The sweep's clients, and the clusters and trusted images of the deployment's configuration. */
async function liveDeps(): Promise<SweepDeps> {
  const config = await deploymentConfig();
  const limits = config.ingestLimits ?? DEFAULT_INGEST_LIMITS;
  return {
    // Clusters configured without Kubernetes API access (CONFIG_MAP, unreachable) have no access entry.
    clusters: clustersServed(config.clusters, env.CLUSTER_REACH),
    api: async (cluster: string) => new ClusterApi(await endpoint(cluster), tokens),
    incidents: new IncidentStore(ddb, {
      tableName: env.INCIDENT_TABLE_NAME,
      windowMs: env.INCIDENT_WINDOW_MINUTES * 60_000,
      retentionDays: env.HISTORY_RETENTION_DAYS,
    }),
    workflow: new WorkflowStarter(new SFNClient({}), env.WORKFLOW_ARN),
    // The same hourly budgets as the log path: one counter per cluster, whichever source opens.
    budget: new IncidentBudget(ddb, env.INCIDENT_TABLE_NAME, limits),
    limits,
    now: Date.now,
    options: { trustedSandboxImages: config.trustedSandboxImages ?? [], region: env.AWS_REGION },
  };
}

/**
 * The EventBridge Scheduler invocation: the schedule sets no input, and nothing in the event decides
 * what the sweep does (the configured clusters do).
 */
export const sweepEventSchema = z.unknown();

/**
 * Each cluster the sweep could not read counts once in `ClusterReadFailed` (dimension `cluster`,
 * as the Kubernetes function counts its reads): the stack's alarm tells which cluster keeps failing.
 */
function meter(outcome: SweepOutcome): void {
  for (const c of outcome.clusters.filter((x) => x.error)) {
    const m = metrics.singleMetric();
    m.addDimension('cluster', c.cluster);
    m.addMetric(CLUSTER_READ_FAILED, MetricUnit.Count, 1);
    logger.warn('cluster not swept', { cluster: c.cluster, error: c.error });
  }
}

/** Scheduled sweep: stuck pods that produced no log line open incidents through the ingest path. */
export const createHandler = (d: () => Promise<SweepDeps>) =>
  withPowertools(sweepEventSchema, async () => {
    const outcome = await sweepClusters(await d());
    meter(outcome);
    // Over a limit: not evaluated, kept in this log with its samples (the ingest path keeps them in S3).
    if (outcome.dropped.length)
      logger.warn('incident candidates over the limits: not evaluated', { dropped: outcome.dropped });
    logger.info('kubernetes sweep done', { ...outcome });
    return outcome;
  });

export const handler = createHandler(liveDeps);
