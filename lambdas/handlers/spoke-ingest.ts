import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import * as z from 'zod/mini';
import { forwardSignals, type SpokeBus, type SpokeDeps } from '../aws/fleet/spoke-forwarder.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { logger, metrics, tracer, withPowertools } from '../aws/runtime/powertools.js';
import { prepareAnchorIndex } from '../core/detect/prefilter.js';
import '../core/text/zod-english.js';

/** A CloudWatch Logs subscription payload (`awslogs.data`, read with a size limit by the domain). */
export const spokeEventSchema = z.looseObject({ awslogs: z.looseObject({ data: z.string() }) });

/** Error for an event EventBridge did not accept (the invocation retries; its DLQ keeps the payload). */
export class PutEventsFailedError extends Error {
  override readonly name = 'PutEventsFailedError';
}

/** The spoke account's default bus: a rule there forwards to the hub's bus with its own role. */
export class DefaultBus implements SpokeBus {
  constructor(private readonly client: EventBridgeClient) {}

  async put(entry: { source: string; detailType: string; detail: string }): Promise<void> {
    const r = await this.client.send(
      new PutEventsCommand({ Entries: [{ Source: entry.source, DetailType: entry.detailType, Detail: entry.detail }] }),
    );
    const failed = r.Entries?.find((e) => e.ErrorCode);
    if (r.FailedEntryCount || failed)
      throw new PutEventsFailedError(`PutEvents refused the batch: ${failed?.ErrorCode}: ${failed?.ErrorMessage}`);
  }
}

/** Log lines of this account's clusters → incident candidates on the way to the hub. */
export const createHandler = (deps: SpokeDeps) =>
  withPowertools(
    spokeEventSchema,
    async (event) => {
      const outcome = await forwardSignals(event, deps);
      metrics.addMetric('RecordsReceived', MetricUnit.Count, outcome.received);
      metrics.addMetric('CandidatesForwarded', MetricUnit.Count, outcome.candidates);
      metrics.addMetric('RecordsRejected', MetricUnit.Count, outcome.rejected);
      logger.info('forwarded', { ...outcome });
      return outcome;
    },
    { storedMetrics: true },
  );

function liveDeps(): SpokeDeps {
  const env = readEnvironment('spoke-ingest');
  return {
    bus: new DefaultBus(tracer.captureAWSv3Client(new EventBridgeClient({}))),
    config: {
      logGroupClusters: env.LOG_GROUP_CLUSTERS,
      accountScope: 'account',
      trustedSandboxImages: env.TRUSTED_SANDBOX_IMAGES,
    },
    now: Date.now,
    account: env.SPOKE_ACCOUNT,
    region: env.AWS_REGION,
  };
}

export const handler = createHandler(liveDeps());

prepareAnchorIndex();
