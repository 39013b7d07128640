import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { SSMClient } from '@aws-sdk/client-ssm';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  clusterActionsPartition,
  clusterActionsSince,
  lockKey,
  nodeCooldownKey,
} from '../../core/contract/incident-table.js';
import { CHECKS_FOR_CLASS, PROBE_CLASSES } from '../../core/policy/policy.js';
import type { IncidentInput, WorkflowConfig } from '../../core/workflow/workflow-config.js';
import { readKillSwitch } from '../runtime/safety-reads.js';

export interface OpenDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly ssm: SSMClient;
  readonly config: WorkflowConfig;
  readonly now: () => number;
  /** The Region the function runs in: the incident's Region when its cluster does not name one. */
  readonly region: string;
}

export interface OpenResult {
  readonly duplicate: boolean;
  readonly gate: {
    readonly killSwitch: boolean;
    readonly killSwitchReadable: boolean;
    readonly optedIn: boolean;
    readonly mode: string;
  };
  readonly history: {
    readonly nodeActionsLastHour: number;
    readonly lastNodeActionAt: number | null;
  };
  /** Instance id or node name to resolve, null when the incident is not about one node. */
  readonly node: string | null;
  readonly checks: Readonly<Record<'iam' | 'ecr' | 'network' | 'eks' | 'changes', boolean>>;
  readonly probe: boolean;
  readonly region: string;
  readonly openedAt: number;
}

const LOCK_MS = 6 * 3_600_000;

/** The node an incident is about: its instance id, node name, or node-scope value. */
export function incidentNode(i: IncidentInput): string | null {
  return i.entities.instanceId ?? i.entities.node ?? (i.scope === 'node' ? i.scopeValue : null);
}

/**
 * Open incident: takes the per-key lock (one execution per incident key at a time), reads the kill
 * switch (unreadable = on: fail closed), the cluster's opt-in and class mode, and the action history
 * the policy needs (hourly cap, cooldown). The breaker counts resolved instances: Decide does that.
 */
export async function openIncident(i: IncidentInput, executionId: string, deps: OpenDeps): Promise<OpenResult> {
  const { ddb, config } = deps;
  const now = deps.now();
  const table = config.tableName;
  const ttl = (ms: number) => Math.floor((now + ms) / 1000);
  const node = incidentNode(i);
  const cluster = config.clusters.find((c) => c.name === i.cluster);
  const base = {
    node,
    checks: Object.fromEntries(
      (['iam', 'ecr', 'network', 'eks', 'changes'] as const).map((g) => [g, CHECKS_FOR_CLASS[i.class].includes(g)]),
    ) as OpenResult['checks'],
    probe: PROBE_CLASSES.has(i.class) && node !== null,
    region: cluster?.region ?? deps.region,
    openedAt: now,
  };

  try {
    await ddb.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...lockKey(i.incidentKey),
          executionId,
          lockedUntil: now + LOCK_MS,
          expiresAt: ttl(LOCK_MS),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR lockedUntil < :now OR executionId = :me',
        ExpressionAttributeValues: { ':now': now, ':me': executionId },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    return {
      ...base,
      duplicate: true,
      gate: { killSwitch: true, killSwitchReadable: true, optedIn: cluster !== undefined, mode: config.modes[i.class] },
      history: { nodeActionsLastHour: 0, lastNodeActionAt: null },
    };
  }

  const { killSwitch, readable: killSwitchReadable } = await readKillSwitch(deps.ssm, config.killSwitchParameterName);

  const hourAgo = now - 3_600_000;
  const actions = await ddb.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': clusterActionsPartition(i.cluster),
        ':from': clusterActionsSince(hourAgo).from,
        ':to': clusterActionsSince(hourAgo).to,
      },
      Select: 'COUNT',
    }),
  );
  let lastNodeActionAt: number | null = null;
  if (node) {
    const cooldown = await ddb.send(new GetCommand({ TableName: table, Key: nodeCooldownKey(node, i.class) }));
    lastNodeActionAt = typeof cooldown.Item?.at === 'number' ? cooldown.Item.at : null;
  }
  return {
    ...base,
    duplicate: false,
    gate: { killSwitch, killSwitchReadable, optedIn: cluster !== undefined, mode: config.modes[i.class] },
    history: { nodeActionsLastHour: actions.Count ?? 0, lastNodeActionAt },
  };
}
