import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetCommandInvocationCommand, GetParameterCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { CheckClients } from '../lambdas/aws/checks/groups.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { type LocalTable, WORKFLOW_MARSHALL } from './dynamo.js';
import { guard } from './guard.js';
import type { AwsRequest, PolicyDocument, TemplateAuthorizer } from './iam.js';
import { checkParameterValue, checkPublish, serviceError } from './limits.js';
import { type Faults, mockAccount } from './mock-account.js';
import { s3Objects } from './s3-objects.js';
import type { LocalRunCommand } from './ssm-runtime.js';
import type { TaskFault } from './task-faults.js';
import { ACCOUNT, idsOfType, REGION, type ResolvedTemplate, refOf } from './template.js';

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' };

/** The HMAC key the local approval secret holds. */
export const LOCAL_APPROVAL_SECRET = 'test-approval-key-0123456789abcdef';

/** What SNS asks KMS for when a publisher writes to a topic encrypted with a customer managed key. */
export function topicKeyRequests(template: ResolvedTemplate, topicArn: string): AwsRequest[] {
  const id = idsOfType(template, 'AWS::SNS::Topic').find((x) => refOf(template, x) === topicArn);
  const key = id ? template.Resources[id].Properties?.KmsMasterKeyId : undefined;
  if (typeof key !== 'string' || key === 'alias/aws/sns') return [];
  const keyArn = key.startsWith('arn:') ? key : `arn:aws:kms:${REGION}:${ACCOUNT}:key/${key}`;
  const context = { 'kms:ViaService': `sns.${REGION}.amazonaws.com`, 'kms:CallerAccount': ACCOUNT };
  return ['kms:GenerateDataKey', 'kms:Decrypt'].map((action) => ({
    action,
    resource: keyArn,
    context,
    deniedAs: 'KMSAccessDeniedException',
  }));
}

export interface WorkflowClientOptions {
  /** Run Command on the local nodes (the door's SendCommand and GetCommandInvocation). */
  readonly commands: LocalRunCommand;
  /** What happens after a SendCommand the node accepted (log lines that keep arriving, …). */
  readonly onSent?: (input: { DocumentName: string; InstanceIds: string[] }) => Promise<void>;
  readonly template: ResolvedTemplate;
  readonly authz: TemplateAuthorizer;
  readonly account: AccountSnapshot;
  readonly faults?: Faults;
  /** Run Command answering with an error (as the SDK names it) to the door's calls, by API. */
  readonly ssmFaults?: SsmFaults;
  readonly table: LocalTable;
  readonly killSwitch?: 'on' | 'off' | 'unreadable';
  readonly killSwitchName: string;
}

/** Every SDK client the workflow's functions use, answering locally and authorised against the template. */
export interface WorkflowClients {
  readonly aws: CheckClients & { restore(): void };
  readonly ddb: DynamoDBDocumentClient;
  readonly ssm: SSMClient;
  readonly sns: SNSClient;
  readonly s3: S3Client;
  readonly sfn: SFNClient;
  readonly secrets: SecretsManagerClient;
  /** Messages published through the SNS client. */
  readonly published: { subject?: string; message?: string }[];
  /** Objects written to S3, by key. */
  readonly evidence: Map<string, string>;
  /** Outputs sent with SendTaskSuccess. */
  readonly taskOutputs: string[];
  /** An operator changes the kill switch parameter (or its read starts failing) mid-run. */
  setKillSwitch(value: 'on' | 'off' | 'unreadable'): void;
}

function killSwitchParameter(o: WorkflowClientOptions) {
  const [id] = idsOfType(o.template, 'AWS::SSM::Parameter');
  const value = o.killSwitch ?? 'off';
  const allowedPattern = id ? (o.template.Resources[id].Properties?.AllowedPattern as string | undefined) : undefined;
  checkParameterValue(value, { allowedPattern });
  return { Name: o.killSwitchName, Value: value, Type: 'String' as const, Version: 1 };
}

/** SendCommand authorizes each instance by its tags (the conditions of pod-doctor's grant). */
function instanceRequests(o: WorkflowClientOptions, i: Record<string, unknown>): AwsRequest[] {
  const ids = Array.isArray(i.InstanceIds) ? i.InstanceIds.map(String) : [];
  return ids.map((id) => ({
    action: 'ssm:SendCommand',
    resource: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${id}`,
    context: Object.fromEntries(
      (o.account.instances.find((x) => x.InstanceId === id)?.Tags ?? []).flatMap((t) => [
        [`ssm:resourceTag/${t.Key}`, String(t.Value)],
        [`aws:ResourceTag/${t.Key}`, String(t.Value)],
      ]),
    ),
  }));
}

/** The SDK's names for the errors Run Command answers with (Step Functions prefixes them with `Ssm.`). */
function sdkError(e: unknown): unknown {
  const err = e as Error;
  const name = /^Ssm\.(\w+?)(Exception)?$/.exec(err.name ?? '')?.[1];
  return name ? Object.assign(new Error(err.message), { name, $fault: 'client', $metadata: {} }) : e;
}

/** Run Command faults by API: each a {@link TaskFault} whose `when` sees the call's input. */
export type SsmFaults = Readonly<Partial<Record<'SendCommand' | 'GetCommandInvocation', TaskFault>>>;

/** Throws the API's injected fault while it has attempts left, as the SDK would after its own retries. */
function ssmFault(faults: SsmFaults | undefined, api: keyof SsmFaults, input: unknown, seen: Map<string, number>) {
  const f = faults?.[api];
  if (!f || (f.when && !f.when(input))) return;
  const n = (seen.get(api) ?? 0) + 1;
  seen.set(api, n);
  if (f.times === undefined || n <= f.times)
    throw serviceError(f.error, f.message ?? `${f.error} (injected, attempt ${n})`, 500);
}

/** SendCommand and GetCommandInvocation answered by the local nodes. */
function runCommandOn(mock: ReturnType<typeof mockClient>, o: WorkflowClientOptions): void {
  const seen = new Map<string, number>();
  mock
    .on(SendCommandCommand)
    .callsFake(async (i: { DocumentName: string; InstanceIds: string[]; Parameters?: Record<string, string[]> }) => {
      ssmFault(o.ssmFaults, 'SendCommand', i, seen);
      const out = await o.commands.send(i).catch((e: unknown) => {
        throw sdkError(e);
      });
      await o.onSent?.(i);
      return { ...out, $metadata: {} };
    });
  mock.on(GetCommandInvocationCommand).callsFake(async (i: { CommandId: string; InstanceId: string }) => {
    ssmFault(o.ssmFaults, 'GetCommandInvocation', i, seen);
    try {
      return { ...o.commands.get(i), $metadata: {} };
    } catch (e) {
      throw sdkError(e);
    }
  });
}

/** The repository policy of an ECR repository of the recorded account (any registry), by its ARN. */
function repositoryPolicy(account: AccountSnapshot, resource: string): PolicyDocument | undefined {
  const m = /^arn:[^:]+:ecr:[^:]+:(\d{12}):repository\/(.+)$/.exec(resource);
  const x = Object.values(account.repositories).find(
    (r) => m && r.repository.repositoryName === m[2] && (r.repository.registryId ?? account.accountId) === m[1],
  );
  return x?.policyText ? (JSON.parse(x.policyText) as PolicyDocument) : undefined;
}

/** Builds the clients of one workflow run. */
export function workflowClients(o: WorkflowClientOptions): WorkflowClients {
  const { authz, template } = o;
  const aws = mockAccount(o.account, o.faults);
  guard(aws.ec2, 'ec2', authz);
  guard(aws.iam, 'iam', authz);
  guard(aws.eks, 'eks', authz);
  guard(aws.ecr(REGION), 'ecr', authz, undefined, (r) => repositoryPolicy(o.account, r.resource));
  const ddb = guard(
    DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: REGION, endpoint: o.table.endpoint, credentials: CREDENTIALS, maxAttempts: 1 }),
      { marshallOptions: WORKFLOW_MARSHALL },
    ),
    'dynamodb',
    authz,
  );

  const ssm = new SSMClient({ region: REGION, credentials: CREDENTIALS });
  let killSwitch = o.killSwitch ?? 'off';
  const ssmMock = mockClient(ssm);
  ssmMock.on(GetParameterCommand).callsFake(async () => {
    if (killSwitch === 'unreadable')
      throw serviceError('AccessDeniedException', 'User is not authorized to perform: ssm:GetParameter', 403);
    return { Parameter: killSwitchParameter({ ...o, killSwitch }), $metadata: {} };
  });
  runCommandOn(ssmMock, o);
  guard(ssm, 'ssm', authz, (command, i) => (command === 'SendCommandCommand' ? instanceRequests(o, i) : []));

  const published: WorkflowClients['published'] = [];
  const sns = new SNSClient({ region: REGION, credentials: CREDENTIALS });
  mockClient(sns)
    .on(PublishCommand)
    .callsFake((i) => {
      checkPublish(i);
      published.push({ subject: i.Subject, message: i.Message });
      return { MessageId: `m-${published.length}` };
    });
  guard(sns, 'sns', authz, (command, i) =>
    command === 'PublishCommand' ? topicKeyRequests(template, String(i.TopicArn)) : [],
  );

  const s3 = new S3Client({ region: REGION, credentials: CREDENTIALS });
  const evidence = s3Objects(s3);
  guard(s3, 's3', authz);

  const taskOutputs: string[] = [];
  const sfn = new SFNClient({ region: REGION, credentials: CREDENTIALS });
  const sfnMock = mockClient(sfn);
  sfnMock.on(SendTaskSuccessCommand).callsFake((i) => {
    taskOutputs.push(String(i.output));
    return {};
  });
  sfnMock.on(SendTaskFailureCommand).resolves({});
  guard(sfn, 'states', authz);

  const secrets = new SecretsManagerClient({ region: REGION, credentials: CREDENTIALS });
  mockClient(secrets)
    .on(GetSecretValueCommand)
    .callsFake((i) => ({ ARN: i.SecretId, SecretString: LOCAL_APPROVAL_SECRET }));
  guard(secrets, 'secretsmanager', authz);

  const setKillSwitch = (value: 'on' | 'off' | 'unreadable') => {
    killSwitch = value;
  };
  return { aws, ddb, ssm, sns, s3, sfn, secrets, published, evidence, taskOutputs, setKillSwitch };
}
