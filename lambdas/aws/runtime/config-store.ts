import { createHash } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { CONFIG_VARIABLES } from '../../core/contract/handler-environment.js';
import { configKey } from '../../core/contract/incident-table.js';
import { CONFIG_INTEGRITY_MISMATCH, METRICS_NAMESPACE, SERVICE_NAME } from '../../core/contract/metric-names.js';
import { observeOnly, parseWorkflowConfig, type WorkflowConfig } from '../../core/workflow/workflow-config.js';

/**
 * The deployment's configuration store: one document per deployed version in the incident table
 * (`pk = CONFIG`, `sk = <version>`), written by the stack's `Custom::PodDoctorConfig` resource and
 * read once per execution environment by every function that needs it. The function's environment
 * carries only where to look ({@link CONFIG_VARIABLES}), so it stays within Lambda's 4 KB at any
 * number of clusters; a DynamoDB item holds 400 KB.
 */

/** Attribute holding the configuration document (JSON text). */
const DOCUMENT = 'document';

/** Where one deployed version of the configuration is. */
export interface ConfigLocation {
  readonly tableName: string;
  readonly version: string;
}

/** The function's environment does not say where its configuration is (a deployment defect). */
export class ConfigLocationError extends Error {
  override readonly name = 'ConfigLocationError';
}

/** The configuration document of this version is not in the table. */
export class ConfigNotFoundError extends Error {
  override readonly name = 'ConfigNotFoundError';
}

/** The location from the function's environment. @throws ConfigLocationError naming the missing variable */
export function configLocation(env: Readonly<Record<string, string | undefined>> = process.env): ConfigLocation {
  const tableName = env[CONFIG_VARIABLES.table];
  const version = env[CONFIG_VARIABLES.version];
  const missing = [!tableName && CONFIG_VARIABLES.table, !version && CONFIG_VARIABLES.version].filter(Boolean);
  if (!tableName || !version)
    throw new ConfigLocationError(
      `${missing.join(' and ')} not set: the function was deployed without its configuration`,
    );
  return { tableName, version };
}

/** The version of a document: the first 16 hex digits of its SHA-256 (a new document, a new version). */
export function configVersion(document: string): string {
  return createHash('sha256').update(document).digest('hex').slice(0, 16);
}

/**
 * Reads and validates one version (strongly consistent: the deployment wrote it just before). The
 * document is accepted only when its hash is the version the deployment pinned (the function's
 * environment, set by CloudFormation from the writer's answer): any other document under that key was
 * written by someone else, so the function runs observe-only ({@link observeOnly}) and says so (a
 * metric the stack alarms on, an error log line).
 * @throws ConfigNotFoundError when the item is missing; InvalidWorkflowConfigError when it does not validate
 */
export async function readConfig(ddb: DynamoDBDocumentClient, at: ConfigLocation): Promise<WorkflowConfig> {
  const r = await ddb.send(
    new GetCommand({ TableName: at.tableName, Key: configKey(at.version), ConsistentRead: true }),
  );
  const where = `pod-doctor configuration ${at.version} in table ${at.tableName}`;
  const document = r.Item?.[DOCUMENT];
  if (typeof document !== 'string')
    throw new ConfigNotFoundError(
      `${where} not found: the stack writes it before it updates the functions; redeploy the stack`,
    );
  const config = parseWorkflowConfig(document, where);
  const found = configVersion(document);
  if (found === at.version) return config;
  reportMismatch(where, found);
  return observeOnly(config);
}

/** The mismatch as an embedded-metric log line (CloudWatch turns it into the metric the stack alarms on). */
function reportMismatch(where: string, found: string): void {
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [['service']],
            Metrics: [{ Name: CONFIG_INTEGRITY_MISMATCH, Unit: 'Count' }],
          },
        ],
      },
      service: SERVICE_NAME,
      [CONFIG_INTEGRITY_MISMATCH]: 1,
      level: 'ERROR',
      message: `${where}: the stored document hashes to ${found}, not the pinned version: running observe-only`,
    }),
  );
}

/**
 * Validates `document` and stores it under its version; returns the version.
 * @throws InvalidWorkflowConfigError before anything is written
 */
export async function writeConfig(ddb: DynamoDBDocumentClient, tableName: string, document: string): Promise<string> {
  const version = configVersion(document);
  parseWorkflowConfig(document, `pod-doctor configuration ${version}`);
  await ddb.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...configKey(version), [DOCUMENT]: document, writtenAt: new Date().toISOString() },
    }),
  );
  return version;
}

/** Removes one version (a later deployment replaced it, or the stack is deleted); a missing table is no error. */
export async function deleteConfig(ddb: DynamoDBDocumentClient, tableName: string, version: string): Promise<void> {
  try {
    await ddb.send(new DeleteCommand({ TableName: tableName, Key: configKey(version) }));
  } catch (e) {
    if ((e as Error).name !== 'ResourceNotFoundException') throw e;
  }
}

/**
 * The configuration of this execution environment: read on first use, then cached (a new version
 * comes with new environment variables, hence new execution environments). A failed read is not
 * cached: it fails this invocation with its error, and the next one reads again.
 */
export function configLoader(
  ddb: () => DynamoDBDocumentClient,
  location: () => ConfigLocation = () => configLocation(),
): () => Promise<WorkflowConfig> {
  return untilSucceeded(() => readConfig(ddb(), location()));
}

/**
 * `make` run on first use and its result kept; a failure is not kept: it fails this call with its
 * error, and the next call runs `make` again (a handler's dependencies built from its configuration).
 */
export function untilSucceeded<T>(make: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    cached ??= Promise.resolve()
      .then(make)
      .catch((e: unknown) => {
        cached = undefined;
        throw e;
      });
    return cached;
  };
}
