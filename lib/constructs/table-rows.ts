import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { ROW_PARTITIONS, type RowKind } from '../../lambdas/core/contract/incident-table.js';

/** The item writes a function may be given on rows it owns (no batch or transaction: each names its key). */
export type RowWrite = 'dynamodb:PutItem' | 'dynamodb:UpdateItem' | 'dynamodb:DeleteItem';

/**
 * `actions` on the incident table's rows of `kinds` only: the partition key of every item the call
 * touches must match one of the kinds' patterns (`dynamodb:LeadingKeys`, which DynamoDB sets on every
 * item write). One statement per call: a function's writes read as the rows it owns.
 */
export function grantRowWrites(
  table: ITableV2,
  grantee: IGrantable,
  kinds: readonly RowKind[],
  actions: readonly RowWrite[],
): Grant {
  const grant = Grant.addToPrincipal({
    grantee,
    actions: [...actions],
    resourceArns: [table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': kinds.flatMap((k) => ROW_PARTITIONS[k]) } },
  });
  table.encryptionKey?.grantEncryptDecrypt(grantee);
  return grant;
}

/** Item and query reads of the whole table (reads decide nothing a writer could not; writes are scoped). */
export function grantTableReads(
  table: ITableV2,
  grantee: IGrantable,
  actions: readonly ('dynamodb:GetItem' | 'dynamodb:Query')[],
): Grant {
  return table.grant(grantee, ...actions);
}
