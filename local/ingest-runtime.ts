import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { IncidentBudget } from '../lambdas/aws/ingest/incident-budget.js';
import { IncidentStore } from '../lambdas/aws/ingest/incident-store.js';
import { type IngestDeps, type IngestOutcome, ingest } from '../lambdas/aws/ingest/ingest-service.js';
import { TopicNotices } from '../lambdas/aws/ingest/topic-notices.js';
import { WorkflowStarter } from '../lambdas/aws/ingest/workflow-starter.js';
import { RejectStore } from '../lambdas/aws/runtime/evidence-store.js';
import type { IngestConfig } from '../lambdas/core/incident/ingest.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../lambdas/core/incident/ingest-limits.js';
import { parseWorkflowConfig } from '../lambdas/core/workflow/workflow-config.js';
import { configResourceOf } from './config-store.js';
import type { LocalTable } from './dynamo.js';
import { asRole, guard } from './guard.js';
import { TemplateAuthorizer } from './iam.js';
import { checkExecutionInput, checkExecutionName, checkLambdaPayload, checkPublish } from './limits.js';
import { s3Objects } from './s3-objects.js';
import { idsOfType, REGION, type ResolvedTemplate } from './template.js';
import { topicKeyRequests } from './workflow-clients.js';

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' };

/** A function of a template by its handler (metadata PodDoctorHandler): its role and environment. */
export function deployedFunction(
  template: ResolvedTemplate,
  handler: string,
): { role: string; env: Record<string, string> } {
  for (const r of Object.values(template.Resources)) {
    const env = (r.Properties?.Environment as { Variables?: Record<string, string> } | undefined)?.Variables;
    if (r.Type === 'AWS::Lambda::Function' && r.Metadata?.PodDoctorHandler === handler)
      return { role: String(r.Properties?.Role), env: env ?? {} };
  }
  throw new Error(`no ${handler} function in the template`);
}

/** The DynamoDB document client of a deployed function: dynalite, every call authorised for its role. */
export function guardedDocumentClient(table: LocalTable, authz: TemplateAuthorizer): DynamoDBDocumentClient {
  return guard(
    DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: REGION, endpoint: table.endpoint, credentials: CREDENTIALS, maxAttempts: 1 }),
      { marshallOptions: { removeUndefinedValues: true } },
    ),
    'dynamodb',
    authz,
  );
}

/** S3 as a deployed function sees it: every call authorised, objects kept in `objects` (key → body; create-only puts as S3 answers them). */
export function guardedS3(authz: TemplateAuthorizer): { s3: S3Client; objects: Map<string, string> } {
  const s3 = new S3Client({ region: REGION, credentials: CREDENTIALS });
  const objects = s3Objects(s3);
  return { s3: guard(s3, 's3', authz), objects };
}

/** Executions a deployed function starts, with Step Functions' name and input rules on StartExecution. */
export interface LocalStarts {
  readonly sfn: SFNClient;
  /** Workflow inputs of the executions started (one per execution name). */
  readonly started: Record<string, unknown>[];
  /** When each was started (epoch ms, same order). */
  readonly startedAt: number[];
  /** StartExecution requests made, including ones that returned an existing execution. */
  calls(): number;
}

export function localStarts(authz: TemplateAuthorizer): LocalStarts {
  const started: Record<string, unknown>[] = [];
  const startedAt: number[] = [];
  const inputs = new Map<string, string>();
  let calls = 0;
  const sfn = new SFNClient({ region: REGION, credentials: CREDENTIALS });
  mockClient(sfn)
    .on(StartExecutionCommand)
    .callsFake((i) => {
      calls++;
      checkExecutionName(String(i.name));
      checkExecutionInput(String(i.input));
      const executionArn = `${String(i.stateMachineArn).replace(':stateMachine:', ':execution:')}:${i.name}`;
      // Step Functions: the same name and input return the running execution; another input is refused.
      const earlier = inputs.get(String(i.name));
      if (earlier === String(i.input)) return { executionArn };
      if (earlier !== undefined)
        throw new ExecutionAlreadyExists({ message: `Execution Already Exists: '${executionArn}'`, $metadata: {} });
      inputs.set(String(i.name), String(i.input));
      started.push(JSON.parse(String(i.input)) as Record<string, unknown>);
      startedAt.push(Date.now());
      return { executionArn };
    });
  guard(sfn, 'states', authz);
  return { sfn, started, startedAt, calls: () => calls };
}

export interface LocalIngest {
  /** One asynchronous invocation of the ingest function with `event`. */
  invoke(event: unknown, requestId: string): Promise<IngestOutcome>;
  /** Workflow inputs of the executions started (one per execution name). */
  readonly started: Record<string, unknown>[];
  /** StartExecution requests made, including ones that returned an existing execution. */
  startCalls(): number;
  /** Objects the function put into the evidence bucket (key → body). */
  readonly objects: Map<string, string>;
  /** Notices the function published to the topic (what the limits dropped). */
  readonly notices: { subject?: string; message?: string }[];
  readonly authz: TemplateAuthorizer;
}

/** Options of a local ingest-like function. */
interface LocalIngestOptions {
  readonly config: IngestConfig;
  readonly now: () => number;
  readonly windowMinutes?: number;
  readonly retentionDays?: number;
  /** Over the limits of the template's configuration document. */
  readonly limits?: Partial<IngestLimits>;
}

/**
 * The ingest function as deployed: its role (every DynamoDB, S3 and StartExecution call authorised
 * against the template), its environment, the 256 KB asynchronous payload limit, and Step
 * Functions' execution name and input rules on StartExecution.
 */
export function localIngest(template: ResolvedTemplate, table: LocalTable, o: LocalIngestOptions): LocalIngest {
  const { role, deps, ...rest } = localIngestDeps(template, table, o);
  return {
    ...rest,
    invoke: (event, requestId) => {
      checkLambdaPayload(event, 'Event');
      return asRole(role, () => ingest(event, requestId, deps));
    },
  };
}

/**
 * The clients and configuration of the ingest-like function running `o.handler` (`ingest`, the fleet
 * hub's `fleet-intake`), every call guarded by its role; `invoke` is the caller's to define.
 */
export function localIngestDeps(
  template: ResolvedTemplate,
  table: LocalTable,
  o: LocalIngestOptions & { readonly handler?: string },
): Omit<LocalIngest, 'invoke'> & { role: string; env: Record<string, string>; deps: IngestDeps } {
  const { role, env } = deployedFunction(template, o.handler ?? 'ingest');
  const authz = new TemplateAuthorizer(template);
  const ddb = guardedDocumentClient(table, authz);
  const { s3, objects } = guardedS3(authz);
  const starts = localStarts(authz);
  const { sns, notices } = localTopic(template, authz);
  const limits = { ...DEFAULT_INGEST_LIMITS, ...deployedLimits(template), ...o.limits };
  const deps = {
    budget: new IncidentBudget(ddb, env.INCIDENT_TABLE_NAME, limits),
    limits,
    notices: env.TOPIC_ARN ? new TopicNotices(sns, env.TOPIC_ARN) : undefined,
    incidents: new IncidentStore(ddb, {
      tableName: env.INCIDENT_TABLE_NAME,
      windowMs: Number(env.INCIDENT_WINDOW_MINUTES ?? o.windowMinutes ?? 30) * 60_000,
      retentionDays: Number(env.HISTORY_RETENTION_DAYS ?? o.retentionDays ?? 365),
    }),
    rejects: new RejectStore(s3, env.EVIDENCE_BUCKET_NAME),
    workflow: env.WORKFLOW_ARN ? new WorkflowStarter(starts.sfn, env.WORKFLOW_ARN) : undefined,
    config: o.config,
    now: o.now,
  };
  return { started: starts.started, objects, notices, startCalls: starts.calls, authz, role, env, deps };
}

/** The ingest limits of the template's configuration document (what the function reads from the store), if it has one. */
function deployedLimits(template: ResolvedTemplate): Partial<IngestLimits> | undefined {
  if (idsOfType(template, 'Custom::PodDoctorConfig').length === 0) return undefined;
  return parseWorkflowConfig(configResourceOf(template).Document).ingestLimits;
}

/** SNS as the function's role may use it (the topic's key included): what was published, SNS's size rules. */
export function localTopic(template: ResolvedTemplate, authz: TemplateAuthorizer) {
  const notices: LocalIngest['notices'] = [];
  const sns = new SNSClient({ region: REGION, credentials: CREDENTIALS });
  mockClient(sns)
    .on(PublishCommand)
    .callsFake((i) => {
      checkPublish(i);
      notices.push({ subject: i.Subject, message: i.Message });
      return { MessageId: `n-${notices.length}` };
    });
  guard(sns, 'sns', authz, (command, i) =>
    command === 'PublishCommand' ? topicKeyRequests(template, String(i.TopicArn)) : [],
  );
  return { sns, notices };
}
