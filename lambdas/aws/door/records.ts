import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { Finding } from '../../core/contract/findings.js';
import {
  clusterActionKey,
  grantKey,
  ledgerKey,
  ledgerPartition,
  nodeEvidenceKey,
} from '../../core/contract/incident-table.js';
import { type DoorResult, findingSchema } from '../../core/door/state.js';
import type { NodeEvidence } from '../../core/policy/cause-evidence.js';

/**
 * What the door keeps in the incident table: the approval grants it reads (written by the approval
 * endpoint), the node evidence it collected itself, its ledger of every request, and the action
 * history the next incident's plan reads.
 */

export interface TableDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
}

const DAY_S = 86_400;

/** When the approval of `digest` was granted (epoch ms), or undefined. */
export async function readGrant(digest: string, deps: TableDeps): Promise<number | undefined> {
  const r = await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: grantKey(digest) }));
  const at = r.Item?.approvedAt;
  return typeof at === 'number' ? at : undefined;
}

/** Records the node's probe as the door ran it (its findings, or why it could not run). */
export async function putNodeEvidence(
  instanceId: string,
  e: {
    readonly at: number;
    readonly findings?: readonly Finding[];
    readonly notRun?: string;
    readonly commandId?: string;
  },
  o: { readonly execution: string; readonly now: number },
  deps: TableDeps,
): Promise<void> {
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...nodeEvidenceKey(instanceId),
        at: e.at,
        ...(e.notRun !== undefined ? { notRun: e.notRun } : { findings: e.findings ?? [] }),
        commandId: e.commandId ?? null,
        execution: o.execution,
        expiresAt: Math.floor(o.now / 1000) + DAY_S,
      },
    }),
  );
}

/** The newest probe the door ran on a node, or undefined. */
export async function getNodeEvidence(instanceId: string, deps: TableDeps): Promise<NodeEvidence | undefined> {
  const r = await deps.ddb.send(
    new GetCommand({ TableName: deps.tableName, Key: nodeEvidenceKey(instanceId), ConsistentRead: true }),
  );
  const item = r.Item;
  if (!item || typeof item.at !== 'number') return undefined;
  if (typeof item.notRun === 'string') return { at: item.at, notRun: item.notRun };
  const findings = z.array(findingSchema).safeParse(item.findings);
  return findings.success ? { at: item.at, findings: findings.data } : { at: item.at, notRun: 'unreadable evidence' };
}

/** One ledger row: the request, the door's verdict and what became of it. */
export async function writeLedger(
  r: DoorResult,
  o: { readonly execution: string; readonly at: number; readonly cluster: string; readonly retentionDays: number },
  deps: TableDeps,
): Promise<void> {
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...ledgerKey(o.execution, o.at, r.slot),
        slot: r.slot,
        kind: r.kind,
        line: r.line,
        digest: r.digest,
        outcome: r.outcome,
        code: r.code ?? null,
        reason: r.reason.slice(0, 2_000),
        status: r.record?.status ?? r.command?.status ?? null,
        cluster: o.cluster,
        at: o.at,
        expiresAt: Math.floor(o.at / 1000) + o.retentionDays * DAY_S,
      },
    }),
  );
}

/** The ledger rows of an execution that hold an outcome (oldest first). */
export async function ledgerOf(
  execution: string,
  deps: TableDeps,
): Promise<readonly { slot: string; kind: string; outcome: string; status: string | null; line: string }[]> {
  const r = await deps.ddb.send(
    new QueryCommand({
      TableName: deps.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': ledgerPartition(execution) },
      ConsistentRead: true,
    }),
  );
  // Call rows (lambdas/aws/door/call-ledger.ts) count once they hold an outcome; oldest first.
  const rows = (r.Items ?? []).filter((x) => typeof x.outcome === 'string');
  rows.sort((a, b) => Number(a.at ?? 0) - Number(b.at ?? 0));
  return rows.map((x) => ({
    slot: String(x.slot),
    kind: String(x.kind),
    outcome: String(x.outcome),
    status: typeof x.status === 'string' ? x.status : null,
    line: String(x.line),
  }));
}

/** A change that ran counts in the cluster's action history (the next incident's plan reads it). */
export async function recordAction(
  r: { readonly cluster: string; readonly incidentId: string; readonly kind: string; readonly instanceId?: string },
  at: number,
  deps: TableDeps,
): Promise<void> {
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...clusterActionKey(r.cluster, at, `${r.incidentId}#${r.kind}`),
        action: r.kind,
        instanceId: r.instanceId ?? null,
        expiresAt: Math.floor(at / 1000) + 2 * 3_600,
      },
    }),
  );
}
