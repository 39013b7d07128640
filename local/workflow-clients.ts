import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { CheckClients } from '../lambdas/aws/checks/groups.js';
import type { AccountSnapshot } from './account-snapshot.js';
import { type LocalTable, WORKFLOW_MARSHALL } from './dynamo.js';
import { guard } from './guard.js';
import type { AwsRequest, TemplateAuthorizer } from './iam.js';
import { checkParameterValue, checkPublish, serviceError } from './limits.js';
import { type Faults, mockAccount } from './mock-account.js';
import { s3Objects } from './s3-objects.js';
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
  readonly template: ResolvedTemplate;
  readonly authz: TemplateAuthorizer;
  readonly account: AccountSnapshot;
  readonly faults?: Faults;
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

/** Builds the clients of one workflow run. */
export function workflowClients(o: WorkflowClientOptions): WorkflowClients {
  const { authz, template } = o;
  const aws = mockAccount(o.account, o.faults);
  guard(aws.ec2, 'ec2', authz);
  guard(aws.iam, 'iam', authz);
  guard(aws.eks, 'eks', authz);
  guard(aws.ecr(REGION), 'ecr', authz);
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
  mockClient(ssm)
    .on(GetParameterCommand)
    .callsFake(async () => {
      if (killSwitch === 'unreadable')
        throw serviceError('AccessDeniedException', 'User is not authorized to perform: ssm:GetParameter', 403);
      return { Parameter: killSwitchParameter({ ...o, killSwitch }), $metadata: {} };
    });
  guard(ssm, 'ssm', authz);

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
