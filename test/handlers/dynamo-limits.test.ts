import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalTable } from '../../local/dynamo.js';
import { freshTable } from '../../local/incident-table.js';

let table: LocalTable;
beforeEach(async () => {
  table = await freshTable('incidents');
});

describe('the incident table (dynalite) refuses what DynamoDB refuses', () => {
  it('partition key: 2048 bytes pass, 2049 are refused', async () => {
    await table.put({ pk: 'p'.repeat(2048), sk: 'OPEN' });
    await expect(table.put({ pk: 'p'.repeat(2049), sk: 'OPEN' })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/Size of hashkey has exceeded the maximum size limit of ?2048 bytes/),
    });
  });

  it('sort key: 1024 bytes pass, 1025 are refused', async () => {
    await table.put({ pk: 'p', sk: 's'.repeat(1024) });
    await expect(table.put({ pk: 'p', sk: 's'.repeat(1025) })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/range keys has exceeded the size limit of 1024 bytes/),
    });
  });

  it('keys are measured in UTF-8 bytes as DynamoDB does (dynalite alone counts UTF-16 code units)', async () => {
    // 1,024 "é" are 2,048 bytes: the most a partition key may hold; 1,025 are 2,050 bytes.
    await table.put({ pk: 'é'.repeat(1024), sk: 'OPEN' });
    await expect(table.put({ pk: 'é'.repeat(1025), sk: 'OPEN' })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/Size of hashkey has exceeded the maximum size limit of ?2048 bytes/),
    });
    // 342 "€" are 1,026 bytes (342 UTF-16 units): DynamoDB refuses the sort key, on every write path.
    const sk = '€'.repeat(342);
    await expect(table.put({ pk: 'p', sk })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: { pk: 'p', sk },
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': 1 },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/range keys/) });
    await table.put({ pk: 'p', sk: '€'.repeat(341) });
  });

  it('item: 400 KB is the most one item may hold', async () => {
    await table.put({ pk: 'p', sk: 'big', body: 'b'.repeat(400 * 1024 - 20) });
    await expect(table.put({ pk: 'p', sk: 'big', body: 'b'.repeat(400 * 1024) })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/Item size has exceeded the maximum allowed size/),
    });
  });

  it('attribute_not_exists on a missing item holds, so an update of a missing row creates it (the old fake said it failed)', async () => {
    const update = (sk: string) =>
      table.client.send(
        new UpdateCommand({
          TableName: table.name,
          Key: { pk: 'APPROVAL#x', sk },
          UpdateExpression: 'SET usedAt = :n',
          ConditionExpression: 'attribute_not_exists(usedAt)',
          ExpressionAttributeValues: { ':n': 1 },
        }),
      );
    await update('APPROVAL');
    expect(await table.get({ pk: 'APPROVAL#x', sk: 'APPROVAL' })).toEqual({
      pk: 'APPROVAL#x',
      sk: 'APPROVAL',
      usedAt: 1,
    });
    await expect(update('APPROVAL')).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});
