import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseWorkflowConfig, type WorkflowConfig } from '../../core/workflow-config.js';

export const logger = new Logger();
export const metrics = new Metrics();
export const tracer = new Tracer();

let config: WorkflowConfig | undefined;
/** The deployment's workflow configuration (WORKFLOW_CONFIG), parsed once. */
export function workflowConfig(): WorkflowConfig {
  config ??= parseWorkflowConfig(process.env.WORKFLOW_CONFIG);
  return config;
}

let ddb: DynamoDBDocumentClient | undefined;
export function documentClient(): DynamoDBDocumentClient {
  ddb ??= DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({ maxAttempts: 6 })), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return ddb;
}
