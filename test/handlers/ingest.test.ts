import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import {
  DescribeAddonCommand,
  DescribeNodegroupCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListNodegroupsCommand,
  ListPodIdentityAssociationsCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-eks';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkRecentChanges } from '../../lambdas/aws/checks/change-checks.js';
import { checkImageExists } from '../../lambdas/aws/checks/ecr-checks.js';
import { ChangeIndex } from '../../lambdas/aws/readers/account/change-index.js';
import { writeConfig } from '../../lambdas/aws/runtime/config-store.js';
import { parseEcrImage } from '../../lambdas/core/contract/images.js';
import { APP_REPO, healthyAccount, NODE_ROLE } from '../../local/account-snapshot.js';
import { LocalDynamo, type LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { withLambdaEnv } from '../../local/lambda-env.js';
import { checkExecutionInput, checkExecutionName } from '../../local/limits.js';
import { mockAccount } from '../../local/mock-account.js';
import { cloudTrailFixture, corpus, fixture, subscriptionEvent } from '../support/fixtures.js';
import { testConfig } from '../support/workflow-config.js';

const STATE_MACHINE = 'arn:aws:states:eu-west-1:111122223333:stateMachine:PodDoctorWorkflow';
Object.assign(process.env, {
  INCIDENT_TABLE_NAME: 'incidents',
  EVIDENCE_BUCKET_NAME: 'evidence-bucket',
  INCIDENT_WINDOW_MINUTES: '30',
  WORKFLOW_ARN: STATE_MACHINE,
  // The deployment's configuration: in a table of its own here, so the incident table's scans see incidents only.
  CONFIG_TABLE_NAME: 'ingest-config',
  POWERTOOLS_TRACE_ENABLED: 'false',
  POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
  POWERTOOLS_DEV: 'true',
  AWS_REGION: 'eu-west-1',
});

const s3 = mockClient(S3Client);
const sfn = mockClient(SFNClient);
const eks = mockClient(EKSClient);
let table: LocalTable;
let handler: (
  event: unknown,
  context: Context,
) => Promise<{
  incidentsOpened: string[];
  openedByClass: Record<string, number>;
  incidentsJoined: string[];
  workflowsStarted: string[];
  stats: { rejected: number };
}>;
const ctx = (id: string) => ({ awsRequestId: id }) as Context;
const pauseLine = corpus()[0].line;

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'info').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  // The handler builds its own client at import: point it at dynalite as the SDK's endpoint setting does.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: (await LocalDynamo.get()).endpoint,
    AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  // The configuration the stack's Config resource writes (prod-eu, no log group mapped).
  const config = await freshTable('ingest-config');
  const document = JSON.stringify(testConfig({ clusters: [{ ...testConfig().clusters[0], logGroups: [] }] }));
  process.env.CONFIG_VERSION = await writeConfig(config.client, config.name, document);
  withLambdaEnv();
  handler = (await import('../../lambdas/handlers/ingest.js')).handler as typeof handler;
});

beforeEach(async () => {
  table = await freshTable('incidents');
  s3.reset();
  sfn.reset();
  eks.reset();
  // prod-eu has one managed node group; aws-node uses the node role (no IRSA, no Pod Identity).
  eks.on(ListNodegroupsCommand).resolves({ nodegroups: ['ng-1'] });
  eks
    .on(DescribeNodegroupCommand)
    .resolves({ nodegroup: { nodegroupName: 'ng-1', nodeRole: `arn:aws:iam::111122223333:role/${NODE_ROLE}` } });
  eks.on(ListAccessEntriesCommand).resolves({ accessEntries: [] });
  eks.on(ListPodIdentityAssociationsCommand).resolves({ associations: [] });
  eks.on(DescribeAddonCommand).rejects(new ResourceNotFoundException({ message: 'No addon', $metadata: {} }));
  s3.on(PutObjectCommand).resolves({ ETag: '"d41d8cd98f00b204e9800998ecf8427e"', $metadata: {} });
  sfn.on(StartExecutionCommand).callsFake((input) => {
    // Step Functions refuses what it refuses: bad execution names, inputs over 256 KB.
    checkExecutionName(String(input.name));
    checkExecutionInput(String(input.input));
    return {
      executionArn: `${STATE_MACHINE.replace(':stateMachine:', ':execution:')}:${input.name}`,
      startDate: new Date('2026-11-29T10:00:05Z'),
    };
  });
});
afterEach(() => vi.useRealTimers());

describe('ingest handler', () => {
  it('turns a storm of 3000 identical lines over three invocations into one incident and one workflow', async () => {
    const lines = Array.from({ length: 1000 }, () => pauseLine);
    const first = await handler(subscriptionEvent(lines), ctx('r1'));
    const second = await handler(subscriptionEvent(lines, { start: Date.parse('2026-11-29T10:05:00Z') }), ctx('r2'));
    const third = await handler(subscriptionEvent(lines, { start: Date.parse('2026-11-29T10:10:00Z') }), ctx('r3'));
    expect(first.incidentsOpened).toHaveLength(1);
    expect([second.incidentsOpened, third.incidentsOpened]).toEqual([[], []]);
    expect(second.incidentsJoined).toEqual(first.incidentsOpened);
    // What the class-storm alarm counts: incidents opened, not lines (3000 lines, one incident).
    expect([first.openedByClass, second.openedByClass]).toEqual([{ 'sandbox-image': 1 }, {}]);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
    const [row] = (await table.scan()).filter((r) => r.sk === 'OPEN');
    expect(row).toMatchObject({ occurrences: 3000, class: 'sandbox-image', workflowStarted: true });
    expect(row.lastSeen).toBe(Date.parse('2026-11-29T10:10:00Z') + 999_000);
  });

  it('opens a new incident once the window has passed', async () => {
    await handler(subscriptionEvent([pauseLine]), ctx('r1'));
    const later = await handler(
      subscriptionEvent([pauseLine], { start: Date.parse('2026-11-29T11:00:00Z') }),
      ctx('r2'),
    );
    expect(later.incidentsOpened).toHaveLength(1);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(2);
  });

  it('starts the workflow with the incident as input and the incident id as execution name', async () => {
    await handler(subscriptionEvent([pauseLine]), ctx('r1'));
    const input = sfn.commandCalls(StartExecutionCommand)[0].args[0].input;
    expect(input.stateMachineArn).toBe(STATE_MACHINE);
    expect(JSON.parse(input.input ?? '{}')).toMatchObject({
      incidentId: input.name,
      class: 'sandbox-image',
      cluster: 'prod-eu',
      entities: { sandboxImage: '602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5' },
    });
  });

  it('names the signal of each log group on the incident: the first in the workflow input, every one on the row', async () => {
    await handler(subscriptionEvent([pauseLine]), ctx('r1'));
    // A kube-system container's line (the agent's envelope says so): node rank, as dataplane lines are.
    const systemLine = JSON.stringify({
      log: pauseLine,
      kubernetes: { namespace_name: 'kube-system', container_name: 'aws-node' },
    });
    await handler(
      subscriptionEvent([systemLine], { logGroup: '/aws/containerinsights/prod-eu/application' }),
      ctx('r2'),
    );
    const input = JSON.parse(sfn.commandCalls(StartExecutionCommand)[0].args[0].input.input ?? '{}');
    expect(input.signals).toEqual(['dataplane-logs']);
    const [row] = await table.scan();
    expect(row.signals).toEqual(new Set(['dataplane-logs', 'application-logs']));
  });

  it('keeps unreadable records in the evidence bucket and still processes the rest', async () => {
    const out = await handler(subscriptionEvent(['{"broken', pauseLine]), ctx('req-42'));
    expect(out.stats.rejected).toBe(1);
    const put = s3.commandCalls(PutObjectCommand)[0].args[0].input;
    expect(put.Bucket).toBe('evidence-bucket');
    expect(put.Key).toMatch(/^rejected\/2\d{3}\/\d{2}\/\d{2}\/\d{6}-req-42\.jsonl$/);
    expect(String(put.Body)).toContain('invalid JSON');
    expect(out.incidentsOpened).toHaveLength(1);
  });

  it('starts the workflow on the retry when the first start failed after the incident was opened', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejectsOnce(new Error('ServiceUnavailable'))
      .callsFake((input) => ({ executionArn: `arn:x:${input.name}`, startDate: new Date() }));
    await expect(handler(subscriptionEvent([pauseLine]), ctx('r1'))).rejects.toThrow('ServiceUnavailable');
    const retry = await handler(subscriptionEvent([pauseLine]), ctx('r1'));
    expect(retry.incidentsJoined).toHaveLength(1);
    expect(retry.workflowsStarted).toEqual(retry.incidentsJoined);
  });

  it('treats ExecutionAlreadyExists as started', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));
    const out = await handler(subscriptionEvent([pauseLine]), ctx('r1'));
    expect(out.workflowsStarted).toHaveLength(1);
    expect((await table.scan()).find((r) => r.sk === 'OPEN')?.executionArn).toMatch(/:execution:PodDoctorWorkflow:/);
  });

  it('fails the invocation on DynamoDB throttling so Lambda retries and then dead-letters it', async () => {
    const ddb = mockClient(DynamoDBDocumentClient);
    const throttled = new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: {} });
    ddb.on(PutCommand).rejects(throttled).on(UpdateCommand).rejects(throttled);
    try {
      await expect(handler(subscriptionEvent([pauseLine]), ctx('r1'))).rejects.toThrow('Rate exceeded');
    } finally {
      ddb.restore();
    }
  });

  it('opens an incident of the role’s cluster when a node role loses its ECR policy, and indexes the change', async () => {
    const out = await handler(fixture('events/detach-ecr-readonly.json'), ctx('r1'));
    expect(out.incidentsOpened).toHaveLength(1);
    const keys = (await table.scan()).map((r) => `${r.pk}|${r.sk}`);
    expect(keys).toContainEqual(expect.stringMatching(/^INCIDENT#prod-eu\|image:unknown-image\|registry-auth\|OPEN$/));
    expect(keys).toContainEqual(expect.stringMatching(new RegExp(`^CHANGE#${NODE_ROLE}\\|2026-11-29T10:02:11.000Z#`)));
  });

  it('opens nothing for an inline policy change on a role that is no node or aws-node role (still indexed)', async () => {
    const out = await handler(cloudTrailFixture('put-role-policy-controller-role'), ctx('r1'));
    expect(out.incidentsOpened).toEqual([]);
    expect(out.stats).toMatchObject({ outOfScope: 1 });
    expect((await table.scan()).map((r) => `${r.pk}|${r.sk}`)).toEqual([
      expect.stringMatching(/^CHANGE#aws-load-balancer-controller\|/),
    ]);
  });

  it('indexes an ECR lifecycle expiry; ecr.image-exists then names the lifecycle policy, without CloudTrail', async () => {
    const out = await handler(cloudTrailFixture('ecr-lifecycle-expiry'), ctx('r1'));
    expect(out.incidentsOpened).toEqual([]);
    const index = new ChangeIndex(table.client, table.name);
    const account = healthyAccount();
    account.repositories[APP_REPO].images = account.repositories[APP_REPO].images.filter(
      (i) => !i.imageTags?.includes('v2.3.1'),
    );
    const clients = mockAccount(account);
    try {
      const image = parseEcrImage(`111122223333.dkr.ecr.eu-west-1.amazonaws.com/${APP_REPO}:v2.3.1`);
      if (!image) throw new Error('not an ECR image');
      const f = await checkImageExists(clients.ecr('eu-west-1'), index, image, new Date('2026-11-29T10:00:00Z'));
      expect(f).toMatchObject({
        status: 'fail',
        summary: expect.stringContaining('deleted recently by ECR lifecycle policy'),
        remediation: expect.stringContaining('lifecycle policy expired the image'),
      });
    } finally {
      clients.restore();
    }
  });

  it('change.recent reads the index with one bounded Query per involved resource', async () => {
    await handler(fixture('events/detach-ecr-readonly.json'), ctx('r1'));
    const send = vi.spyOn(table.client, 'send');
    const index = new ChangeIndex(table.client, table.name);
    const f = await checkRecentChanges(
      index,
      { resources: [NODE_ROLE, 'sg-0123456789abcdef0', APP_REPO, 'prod-eu'], lookbackHours: 72 },
      new Date('2026-11-29T11:00:00Z'),
    );
    expect(f).toMatchObject({ status: 'warn', summary: expect.stringContaining(`DetachRolePolicy on ${NODE_ROLE}`) });
    const queries = send.mock.calls.map(
      (c) => (c[0] as { input: { Limit?: number; KeyConditionExpression?: string } }).input,
    );
    expect(queries).toHaveLength(4);
    for (const q of queries)
      expect(q).toMatchObject({ Limit: 20, KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to' });
  });

  it('ignores irrelevant CloudTrail events without touching DynamoDB', async () => {
    const send = vi.spyOn(DynamoDBDocumentClient.prototype, 'send');
    await handler(fixture('events/assign-ip-success.json'), ctx('r1'));
    expect(send).not.toHaveBeenCalled();
    send.mockRestore();
  });
});
