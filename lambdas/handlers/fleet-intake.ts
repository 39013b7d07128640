import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type IntakeDeps, type IntakeOutcome, intake } from '../aws/fleet/fleet-intake.js';
import { IncidentStore } from '../aws/ingest/incident-store.js';
import { WorkflowStarter } from '../aws/ingest/workflow-starter.js';
import { ChangeIndex } from '../aws/readers/account/change-index.js';
import { configLoader } from '../aws/runtime/config-store.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { RejectStore } from '../aws/runtime/evidence-store.js';
import { logger, metrics, tracer, withPowertools } from '../aws/runtime/powertools.js';
import { prepareAnchorIndex } from '../core/detect/prefilter.js';
import { fleetEventSchema, fleetMembers } from '../core/fleet/fleet.js';
import { ingestConfig } from '../core/workflow/ingest-config.js';
import '../core/text/zod-english.js';

function publish(o: IntakeOutcome): void {
  const m = metrics.singleMetric();
  m.addDimension('account', o.account);
  if (!o.admitted) {
    m.addMetric('FleetEventsRefused', MetricUnit.Count, 1);
    logger.warn('fleet event refused and kept', {
      account: o.account,
      region: o.region,
      reason: o.reason,
      key: o.rejectKey,
    });
    return;
  }
  m.addMetric('FleetIncidentsOpened', MetricUnit.Count, o.incidentsOpened.length);
  // What the account's spokes read (the fleet view's signal health per account).
  m.addMetric('FleetRecordsReceived', MetricUnit.Count, o.stats.received);
  logger.info('fleet event admitted', { ...o });
}

/** Events on the hub's fleet bus (spokes' incident candidates, members' CloudTrail events) → incidents. */
export const createHandler = (deps: () => Promise<IntakeDeps>) =>
  withPowertools(
    fleetEventSchema,
    async (event, context) => {
      const outcome = await intake(event, context.awsRequestId, await deps());
      publish(outcome);
      return outcome;
    },
    { storedMetrics: true },
  );

const env = readEnvironment('fleet-intake');
const ddb = DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({})), {
  marshallOptions: { removeUndefinedValues: true },
});
const deploymentConfig = configLoader(() => ddb);

/** The function's clients, from its environment, and the deployment's configuration (read once). */
async function liveDeps(): Promise<IntakeDeps> {
  const config = await deploymentConfig();
  return {
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
    changes: new ChangeIndex(ddb, env.INCIDENT_TABLE_NAME),
    members: fleetMembers(env.FLEET_MEMBERS),
  };
}

let live: Promise<IntakeDeps> | undefined;
export const handler = createHandler(() => {
  live ??= liveDeps().catch((e: unknown) => {
    live = undefined;
    throw e;
  });
  return live;
});

prepareAnchorIndex();
