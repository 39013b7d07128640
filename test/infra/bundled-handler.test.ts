import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeIndex } from '../../lambdas/aws/readers/account/change-index.js';
import { bundleHandler } from '../../lib/constructs/bundling.js';
import { lambdaEntry } from '../../lib/constructs/paths.js';
import { LocalDynamo, type LocalTable } from '../../local/dynamo.js';
import { runBundled } from '../support/bundles.js';

/**
 * The AWS SDK lives inside each bundle (lib/constructs/bundling.ts): a bundle must resolve
 * credentials, sign, send and parse on its own. The check-changes bundle, outside the project (no
 * node_modules to fall back on), in a fresh node process, queries a change index in dynalite.
 */
describe('a bundled handler calls AWS with the SDK it carries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pod-doctor-bundle-'));
  let table: LocalTable;
  let endpoint: string;

  beforeAll(async () => {
    bundleHandler(lambdaEntry('check-changes').source, dir);
    const dynamo = await LocalDynamo.get();
    endpoint = dynamo.endpoint;
    table = await dynamo.freshTable({
      TableName: 'bundle-changes',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
    await new ChangeIndex(table.client, table.name).put({
      eventId: '0f1e2d3c-4b5a-6978-8776-655443322110',
      eventName: 'DetachRolePolicy',
      // The bundle reads the clock: an hour ago is inside its 72-hour lookback.
      at: Date.now() - 3_600_000,
      actor: 'arn:aws:iam::111122223333:user/alice',
      resources: ['eks-node-role'],
      summary: 'AmazonEC2ContainerRegistryReadOnly detached from role eks-node-role',
      roleName: 'eks-node-role',
      policyArn: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('check-changes reads the change index through its bundled DynamoDB client', async () => {
    const event = {
      cluster: 'prod-eu',
      region: 'eu-west-1',
      node: { instanceId: 'i-0a1b2c3d4e5f60718', roleName: 'eks-node-role', securityGroupIds: [] },
    };
    // The invocation context the Lambda runtime passes (Powertools reads it; its methods are not needed here).
    const context = { functionName: 'pod-doctor-check-changes', awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678' };
    const { answer, stdout, stderr } = await runBundled<{
      group: string;
      findings: { id: string; status: string; summary: string }[];
    }>(dir, event, context, {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      CHANGE_TABLE_NAME: table.name,
      POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
      POWERTOOLS_SERVICE_NAME: 'pod-doctor',
      // As PodDoctorFunction sets it on every function (the handler parses its environment at start-up).
      NODE_OPTIONS: '--enable-source-maps',
      // As Lambda sets it for a cold start that is not provisioned concurrency (Powertools' ColdStart metric).
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    });
    expect(answer.group).toBe('changes');
    expect(answer.findings).toEqual([
      expect.objectContaining({ id: 'change.recent', summary: expect.stringContaining('eks-node-role') }),
    ]);
    expect(answer.findings[0].status).not.toBe('error');
    // Metrics: the ColdStart and CheckFindings EMF documents, and no flush of an empty buffer
    // (Powertools' "No application metrics to publish" warning on every invocation).
    const emf = stdout
      .split('\n')
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } })
      .flatMap((d) => d._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((x) => x.Name)));
    expect(emf.sort()).toEqual(['CheckFindings', 'ColdStart']);
    expect(`${stdout}${stderr}`).not.toContain('No application metrics');
  });
});
