import '../support/deployed-env.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigLocationError,
  ConfigNotFoundError,
  configLoader,
  configLocation,
  configVersion,
  readConfig,
} from '../../lambdas/aws/runtime/config-store.js';
import { configKey } from '../../lambdas/core/contract/incident-table.js';
import { InvalidWorkflowConfigError } from '../../lambdas/core/workflow/workflow-config.js';
import { createHandler } from '../../lambdas/handlers/config-writer.js';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';
import { lambdaContext } from '../support/lambda-context.js';
import { testConfig } from '../support/workflow-config.js';

let table: LocalTable;
beforeEach(async () => {
  table = await freshTable('config-store');
  vi.spyOn(console, 'info').mockImplementation(() => {});
});

const document = (over = {}) => JSON.stringify(testConfig(over));
const event = (RequestType: string, Document: string, PhysicalResourceId?: string) => ({
  RequestType,
  PhysicalResourceId,
  ResourceProperties: {
    ServiceToken: 'arn:aws:lambda:eu-west-1:111122223333:function:p',
    TableName: table.name,
    Document,
  },
});
const write = (RequestType: string, Document: string, PhysicalResourceId?: string) =>
  createHandler(table.client)(event(RequestType, Document, PhysicalResourceId), lambdaContext()) as Promise<{
    PhysicalResourceId: string;
    Data?: { Version: string };
  }>;

describe('the configuration writer (Custom::PodDoctorConfig)', () => {
  it('stores a valid document under its version, which is the physical id and the Version attribute', async () => {
    const out = await write('Create', document());
    expect(out.PhysicalResourceId).toBe(configVersion(document()));
    expect(out.Data?.Version).toBe(out.PhysicalResourceId);
    const config = await readConfig(table.client, { tableName: table.name, version: out.PhysicalResourceId });
    expect(config.clusters.map((c) => c.name)).toEqual(['prod-eu']);
  });

  it('a changed document is a new version beside the old one; Delete of the old one leaves the new', async () => {
    const first = await write('Create', document());
    const second = await write('Update', document({ historyRetentionDays: 30 }), first.PhysicalResourceId);
    expect(second.PhysicalResourceId).not.toBe(first.PhysicalResourceId);
    // CloudFormation deletes the replaced physical resource once the update is done.
    await write('Delete', document(), first.PhysicalResourceId);
    const items = (await table.scan()).map((i) => i.sk);
    expect(items).toEqual([second.PhysicalResourceId]);
  });

  it('refuses a document the schema refuses, naming the key, and writes nothing', async () => {
    const bad = JSON.stringify({ ...testConfig(), limits: { ...testConfig().limits, maxNodeGroupShareAffected: 2 } });
    await expect(write('Create', bad)).rejects.toThrow(/limits\.maxNodeGroupShareAffected/);
    expect(await table.scan()).toEqual([]);
  });

  it('Delete of a resource whose Create failed (its physical id is no version) deletes nothing', async () => {
    const kept = await write('Create', document());
    await write('Delete', document(), 'c6af9ac6-7b61-11e6-9a41-93e812345678');
    expect((await table.scan()).map((i) => i.sk)).toEqual([kept.PhysicalResourceId]);
  });
});

describe('the configuration loader every function uses', () => {
  it('reads once per execution environment', async () => {
    const { PhysicalResourceId: version } = await write('Create', document());
    const send = vi.spyOn(table.client, 'send');
    const load = configLoader(
      () => table.client,
      () => ({ tableName: table.name, version }),
    );
    const [a, b] = await Promise.all([load(), load()]);
    expect(await load()).toBe(a);
    expect(b).toBe(a);
    expect(send.mock.calls.filter(([c]) => c instanceof GetCommand)).toHaveLength(1);
    send.mockRestore();
  });

  it('a missing version fails with a clear error, and the next call reads again (failures are not cached)', async () => {
    const version = configVersion(document());
    const load = configLoader(
      () => table.client,
      () => ({ tableName: table.name, version }),
    );
    await expect(load()).rejects.toThrow(ConfigNotFoundError);
    await expect(load()).rejects.toThrow(`pod-doctor configuration ${version} in table ${table.name} not found`);
    await write('Create', document());
    expect((await load()).clusters).toHaveLength(1);
  });

  it('a stored document that no longer validates fails with the schema message', async () => {
    const version = configVersion('{}');
    await table.put({ ...configKey(version), document: '{"clusters":"none"}' });
    await expect(readConfig(table.client, { tableName: table.name, version })).rejects.toThrow(
      InvalidWorkflowConfigError,
    );
    await expect(readConfig(table.client, { tableName: table.name, version })).rejects.toThrow(/clusters/);
  });

  it('the location comes from CONFIG_TABLE_NAME and CONFIG_VERSION; without them the error names them', () => {
    expect(configLocation({ CONFIG_TABLE_NAME: 't', CONFIG_VERSION: '0123456789abcdef' })).toEqual({
      tableName: 't',
      version: '0123456789abcdef',
    });
    expect(() => configLocation({ CONFIG_TABLE_NAME: 't' })).toThrow(ConfigLocationError);
    expect(() => configLocation({})).toThrow('CONFIG_TABLE_NAME and CONFIG_VERSION not set');
  });
});
