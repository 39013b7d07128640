import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ConfigLocation } from '../lambdas/aws/runtime/config-store.js';
import { readConfig, writeConfig } from '../lambdas/aws/runtime/config-store.js';
import { parseWorkflowConfig, type WorkflowConfig } from '../lambdas/core/workflow/workflow-config.js';
import type { LocalTable } from './dynamo.js';
import { asRole, guard } from './guard.js';
import type { TemplateAuthorizer } from './iam.js';
import { idsOfType, REGION, type ResolvedTemplate } from './template.js';

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' };

/** A document client on the local table whose every call is authorised as the role running it. */
function guardedClient(table: LocalTable, authz: TemplateAuthorizer): DynamoDBDocumentClient {
  return guard(
    DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: REGION, endpoint: table.endpoint, credentials: CREDENTIALS, maxAttempts: 1 }),
    ),
    'dynamodb',
    authz,
  );
}

/** The template's `Custom::PodDoctorConfig` resource, resolved: the table and the document it stores. */
export function configResourceOf(template: ResolvedTemplate): { TableName: string; Document: string } {
  const [id] = idsOfType(template, 'Custom::PodDoctorConfig');
  if (!id) throw new Error('no Custom::PodDoctorConfig in the template');
  const p = template.Resources[id].Properties ?? {};
  return { TableName: String(p.TableName), Document: String(p.Document) };
}

/** The configuration document the template deploys, parsed (what a reader sees once the writer stored it). */
export function configDocumentOf(template: ResolvedTemplate): WorkflowConfig {
  return parseWorkflowConfig(configResourceOf(template).Document);
}

/** Role ARN of the function that runs `handler` (its PodDoctorHandler metadata). */
export function roleOfHandler(template: ResolvedTemplate, handler: string): string {
  for (const [id, r] of Object.entries(template.raw)) {
    const meta = (r as { Metadata?: { PodDoctorHandler?: string } }).Metadata;
    if (r.Type === 'AWS::Lambda::Function' && meta?.PodDoctorHandler === handler)
      return String(template.Resources[id].Properties?.Role);
  }
  throw new Error(`no function runs handler ${handler}`);
}

/**
 * Deploys the configuration as CloudFormation does: the config writer, as its own role (IAM decided
 * by the template), validates the resource's document and stores it in the local table.
 */
export async function deployConfig(
  template: ResolvedTemplate,
  table: LocalTable,
  authz: TemplateAuthorizer,
): Promise<ConfigLocation> {
  const { TableName, Document } = configResourceOf(template);
  const ddb = guardedClient(table, authz);
  const version = await asRole(roleOfHandler(template, 'config-writer'), () => writeConfig(ddb, TableName, Document));
  return { tableName: TableName, version };
}

/** Reads the configuration as a deployed function does: as its role (`roleArn`), through the same loader. */
export function loadConfigAs(
  roleArn: string,
  at: ConfigLocation,
  table: LocalTable,
  authz: TemplateAuthorizer,
): Promise<WorkflowConfig> {
  const ddb = guardedClient(table, authz);
  return asRole(roleArn, () => readConfig(ddb, at));
}
