import { CustomResource, Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CONFIG_VARIABLES } from '../../lambdas/core/contract/handler-environment.js';
import { CONFIG_PARTITION } from '../../lambdas/core/contract/incident-table.js';
import { acknowledgeProviderFramework } from './nag.js';
import { lambdaEntry } from './paths.js';
import { PodDoctorFunction } from './pod-doctor-function.js';

/** Props of {@link ConfigStore}. */
export interface ConfigStoreProps {
  /** The table the document is stored in (the incident table: one item per version, `pk = CONFIG`). */
  readonly table: ITableV2;
  /**
   * The configuration document: JSON text (`Stack.toJsonString`, references resolved at deploy) that
   * `workflowConfigSchema` (lambdas/core/workflow/workflow-config.ts) accepts.
   */
  readonly document: string;
  /** Retention of the writer's logs. */
  readonly logRetention: RetentionDays;
}

/**
 * Where pod-doctor's functions read the deployment's configuration (clusters, modes, limits, remedy
 * scopes, resource names): a document in the incident table, written at deploy by a custom resource
 * that validates it first, one item per version. A function attached to the store ({@link ConfigStore.attach}) gets two
 * environment variables (table name, version) and may read only that partition; the document itself
 * never sits in an environment (Lambda allows 4 KB of them; a DynamoDB item holds 400 KB — about 280
 * bytes per cluster with remediation targets, see test/infra/deploy-scale.test.ts).
 */
export class ConfigStore extends Construct {
  /** The stored version (the custom resource's `Version` attribute: a function that reads it deploys after it). */
  readonly version: string;
  private readonly table: ITableV2;

  constructor(scope: Construct, id: string, props: ConfigStoreProps) {
    super(scope, id);
    this.table = props.table;
    const writer = new PodDoctorFunction(this, 'Writer', {
      entry: lambdaEntry('config-writer'),
      description: 'pod-doctor: validate and store the deployment configuration',
      logRetention: props.logRetention,
      timeout: Duration.seconds(60),
      synchronousOnly: true,
    });
    this.grantConfigPartition(writer, ['dynamodb:PutItem', 'dynamodb:DeleteItem']);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: writer,
      logGroup: new LogGroup(this, 'ProviderLogs', { retention: props.logRetention }),
    });
    acknowledgeProviderFramework(provider, writer);
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::PodDoctorConfig',
      properties: { TableName: props.table.tableName, Document: props.document },
    });
    this.version = resource.getAttString('Version');
  }

  /** Gives `fn` the configuration's location (two environment variables) and the read of it. */
  attach(fn: LambdaFunction): void {
    fn.addEnvironment(CONFIG_VARIABLES.table, this.table.tableName);
    fn.addEnvironment(CONFIG_VARIABLES.version, this.version);
    this.grantConfigPartition(fn, ['dynamodb:GetItem']);
  }

  /** `actions` on the items of the configuration partition only (condition dynamodb:LeadingKeys). */
  private grantConfigPartition(grantee: IGrantable, actions: string[]): Grant {
    const grant = Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [this.table.tableArn],
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [CONFIG_PARTITION] } },
    });
    this.table.encryptionKey?.grantEncryptDecrypt(grantee);
    return grant;
  }
}
