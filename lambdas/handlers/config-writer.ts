import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { deleteConfig, writeConfig } from '../aws/runtime/config-store.js';
import { logger, withPowertools } from '../aws/runtime/powertools.js';
import '../core/text/zod-english.js';

/** A version is what configVersion() makes of a document: 16 hex digits. */
const VERSION = /^[0-9a-f]{16}$/;

/** The custom resource event (CDK Provider framework) and the properties the ConfigStore construct sets. */
export const configResourceEventSchema = z.looseObject({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  PhysicalResourceId: z.optional(z.string()),
  ResourceProperties: z.looseObject({
    TableName: z.string().check(z.minLength(3), z.maxLength(255)),
    Document: z.string().check(z.minLength(2)),
  }),
});

/**
 * `Custom::PodDoctorConfig`: Create and Update validate the configuration document and store it
 * under its version (the physical id, and the `Version` attribute every function's environment
 * carries); a changed document gets a new version, and CloudFormation then deletes the old one once
 * every function runs with the new one. Delete removes that version's document. An invalid document
 * fails the deployment with the schema's message, before any function is updated.
 */
export const createHandler = (ddb: DynamoDBDocumentClient) =>
  withPowertools(configResourceEventSchema, async (event) => {
    const { TableName, Document } = event.ResourceProperties;
    if (event.RequestType === 'Delete') {
      const version = event.PhysicalResourceId ?? '';
      // A Create that failed left no document: its physical id is no version.
      if (VERSION.test(version)) await deleteConfig(ddb, TableName, version);
      return { PhysicalResourceId: version };
    }
    const version = await writeConfig(ddb, TableName, Document);
    logger.info('configuration stored', { version, bytes: Buffer.byteLength(Document) });
    return { PhysicalResourceId: version, Data: { Version: version } };
  });

export const handler = createHandler(DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 6 })));
