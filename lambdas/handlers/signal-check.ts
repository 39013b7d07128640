import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { CloudTrailClient } from '@aws-sdk/client-cloudtrail';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { type ClusterSignals, checkSignals, type SignalCheckDeps } from '../aws/ingest/signal-check.js';
import { configLocation, readConfig, untilSucceeded } from '../aws/runtime/config-store.js';
import { logger, metrics, withPowertools } from '../aws/runtime/powertools.js';
import '../core/text/zod-english.js';
import { readEnvironment } from '../aws/runtime/environment.js';

/** The EventBridge Scheduler invocation: no input decides anything (the configured clusters do). */
export const signalCheckEventSchema = z.unknown();

/** One metric per cluster and signal: 1 alive, 0 silent or absent (unknown: none, it was not seen). */
function publish(results: readonly ClusterSignals[]): void {
  for (const c of results) {
    for (const r of c.readings) {
      if (r.status === 'unknown') continue;
      const m = metrics.singleMetric();
      m.addDimensions({ cluster: c.cluster, signal: r.signal });
      m.addMetric('SignalAlive', MetricUnit.Count, r.status === 'ok' ? 1 : 0);
    }
  }
  logger.info('signals checked', { clusters: results });
}

/** Hourly: each cluster's signals (events, dataplane, application, CloudTrail); a change notifies once. */
export const createHandler = (deps: () => Promise<SignalCheckDeps>) =>
  withPowertools(signalCheckEventSchema, async () => {
    const results = await checkSignals(await deps());
    publish(results);
    return { clusters: results };
  });

/** The check's clients, from its environment, and the clusters of the deployment's configuration. */
async function liveDeps(): Promise<SignalCheckDeps> {
  const env = readEnvironment('signal-check');
  const ddb = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const config = await readConfig(ddb, configLocation());
  const sns = new SNSClient({ maxAttempts: 6 });
  return {
    clusters: config.clusters.map((c) => c.name),
    withoutApi: config.clusters.filter((c) => c.kubernetesApi === false).map((c) => c.name),
    region: env.AWS_REGION,
    logs: new CloudWatchLogsClient({ maxAttempts: 6 }),
    cloudtrail: new CloudTrailClient({ maxAttempts: 6 }),
    ddb,
    tableName: env.INCIDENT_TABLE_NAME,
    notify: async (subject, message) => {
      await sns.send(new PublishCommand({ TopicArn: env.TOPIC_ARN, Subject: subject, Message: message }));
    },
    now: Date.now,
  };
}

export const handler = createHandler(untilSucceeded(liveDeps));
