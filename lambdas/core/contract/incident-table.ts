/**
 * The one description of the incident table's layout: key attributes, the TTL attribute and every
 * key prefix. Writers and readers (ingest, workflow functions, the local runtime, the CDK table)
 * build keys here, never by hand.
 */

/** Partition and sort key attribute names. */
export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

/** Attribute holding each item's expiry (epoch seconds) for DynamoDB TTL. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** A primary key of the incident table (a type alias, so it fits `Record<string, unknown>` items). */
export type TableKey = { readonly pk: string; readonly sk: string };

/** Partition key prefix of an incident's open row (the detection paths open and join it). */
export const INCIDENT_PREFIX = 'INCIDENT#';
/** Partition key prefix of the Kubernetes events reader's per-cluster state (lease, resourceVersion). */
export const EVENTS_STATE_PREFIX = 'EVENTS#';
/** Partition key prefix of the events the reader counted (one item per event uid, per incident window). */
export const EVENT_SEEN_PREFIX = 'EVENTSEEN#';
/** Partition key prefix of the signal self-check's per-cluster state. */
export const SIGNAL_STATE_PREFIX = 'SIGNAL#';

/** Partition key prefix of a node command's completion rendezvous (the workflow's task token, the command's final status). */
export const COMMAND_WAIT_PREFIX = 'COMMAND#';

/** The rendezvous of one Run Command command: "Door: await command" writes its token, the status-change event its status. */
export function commandWaitKey(commandId: string): TableKey {
  return { pk: `${COMMAND_WAIT_PREFIX}${commandId}`, sk: 'WAIT' };
}

/** The open incident row of one incident key (aggregation, dedupe, workflow input). */
export function openIncidentKey(incidentKey: string): TableKey {
  return { pk: `${INCIDENT_PREFIX}${incidentKey}`, sk: 'OPEN' };
}

/** Partition key prefix of an incident's history rows (one per run; append-only, Summarize's alone). */
export const HISTORY_PREFIX = 'HISTORY#';

/**
 * The history row of one workflow run of an incident. Its own partition, not the open row's: IAM
 * scopes writes by partition key (`dynamodb:LeadingKeys`), and the history has one writer.
 */
export function incidentRunKey(incidentKey: string, openedAt: number, executionName: string): TableKey {
  return { pk: `${HISTORY_PREFIX}${incidentKey}`, sk: `${RUN_PREFIX}${openedAt}#${executionName}` };
}

/** Sort key prefix of history rows. */
export const RUN_PREFIX = 'RUN#';

/** The per-incident-key lock that makes a second execution stop at "Duplicate". */
export function lockKey(incidentKey: string): TableKey {
  return { pk: `LOCK#${incidentKey}`, sk: 'LOCK' };
}

/** A pending approval, keyed by its id (the task token stays in this row). */
export function approvalKey(approvalId: string): TableKey {
  return { pk: `APPROVAL#${approvalId}`, sk: 'APPROVAL' };
}

/** Partition of a cluster's node actions (the hourly cap counts them). */
export function clusterActionsPartition(cluster: string): string {
  return `CLUSTER#${cluster}`;
}

/** A node action of a cluster at `at` (epoch ms). */
export function clusterActionKey(cluster: string, at: number, incidentId: string): TableKey {
  return { pk: clusterActionsPartition(cluster), sk: `${ACTION_PREFIX}${at}#${incidentId}` };
}

/** Sort key range of a cluster's node actions since `from` (epoch ms). */
export function clusterActionsSince(from: number): { readonly from: string; readonly to: string } {
  return { from: `${ACTION_PREFIX}${from}`, to: `${ACTION_PREFIX}~` };
}

const ACTION_PREFIX = 'ACTION#';

/** Partition of a cluster's hourly-cap slots (one item per slot, held for an hour by one node action). */
export function capSlotsPartition(cluster: string): string {
  return `CAP#${cluster}`;
}

/** Slot `n` (0-based) of a cluster's hourly cap of node actions. */
export function capSlotKey(cluster: string, n: number): TableKey {
  return { pk: capSlotsPartition(cluster), sk: `SLOT#${String(n).padStart(3, '0')}` };
}

/** The cooldown of one class on one node (time of the last action). */
export function nodeCooldownKey(instanceId: string, failureClass: string): TableKey {
  return { pk: `NODE#${instanceId}`, sk: `COOLDOWN#${failureClass}` };
}

/** Partition of the nodes with an open incident of one class in a cluster (the breaker's numerator). */
export function activeNodesPartition(cluster: string, failureClass: string): string {
  return `ACTIVE#${cluster}#${failureClass}`;
}

/** One node with an open incident of a class in a cluster. */
export function activeNodeKey(cluster: string, failureClass: string, node: string): TableKey {
  return { pk: activeNodesPartition(cluster, failureClass), sk: `NODE#${node}` };
}

/** Partition key prefix of the change index (breaking changes, by touched resource). */
export const CHANGE_PREFIX = 'CHANGE#';

/** One indexed change of one resource (sorted by time, then CloudTrail event id). */
export function changeKey(resource: string, at: number, eventId: string): TableKey {
  return { pk: changePartition(resource), sk: `${new Date(at).toISOString()}#${eventId}` };
}

/** Partition of the indexed changes of one resource (role name, group id, repository, cluster ...). */
export function changePartition(resource: string): string {
  return `${CHANGE_PREFIX}${resource}`;
}

/** Sort key range of a resource's changes since `since` (ISO timestamps sort as times). */
export function changesSince(since: Date): { readonly from: string; readonly to: string } {
  return { from: since.toISOString(), to: '9999' };
}

/** Partition of the deployment's configuration documents (one item per version; see config-store.ts). */
export const CONFIG_PARTITION = 'CONFIG';

/** The configuration document of one deployed version (the sha256 prefix of its content). */
export function configKey(version: string): TableKey {
  return { pk: CONFIG_PARTITION, sk: version };
}

/** A target's cooldown (an account or cluster resource an action changed): one per target, any class. */
export function targetCooldownKey(target: string): TableKey {
  return { pk: `TARGET#${target}`, sk: 'COOLDOWN' };
}

/** The newest probe the door ran on a node (node-owned evidence the gate reads). */
export function nodeEvidenceKey(instanceId: string): TableKey {
  return { pk: `NODE#${instanceId}`, sk: 'EVIDENCE#PROBE' };
}

/** Partition key prefix of approval grants (the approval endpoint may write only these). */
export const GRANT_PREFIX = 'GRANT#';

/** The approval of one request digest, written by the approval endpoint when a human approves. */
export function grantKey(digest: string): TableKey {
  return { pk: `${GRANT_PREFIX}${digest}`, sk: 'GRANT' };
}

/** Partition of the door's ledger of one execution (every request, its verdict and outcome). */
export function ledgerPartition(executionArn: string): string {
  return `LEDGER#${executionArn.split(':').pop()}`;
}

/**
 * The ledger row of one door call (the "<caller>: request" Pass names each call with a UUID): the
 * change it is about to make, then its result. A retried call reads it and never gates twice.
 */
export function ledgerCallKey(executionArn: string, callId: string): TableKey {
  return { pk: ledgerPartition(executionArn), sk: `CALL#${callId}` };
}

/** One ledger row: a request of an execution, at the time the door decided. */
export function ledgerKey(executionArn: string, at: number, slot: string): TableKey {
  return { pk: ledgerPartition(executionArn), sk: `${new Date(at).toISOString()}#${slot}` };
}

/** The events reader's state of one cluster: the resourceVersion read up to, the lease, the last read. */
export function eventsStateKey(cluster: string): TableKey {
  return { pk: `${EVENTS_STATE_PREFIX}${cluster}`, sk: 'STATE' };
}

/** One Kubernetes event (by uid) the reader counted in a cluster. */
export function eventSeenKey(cluster: string, uid: string): TableKey {
  return { pk: `${EVENT_SEEN_PREFIX}${cluster}#${uid}`, sk: 'SEEN' };
}

/** The last status the self-check recorded for one signal of one cluster (notifications on change). */
export function signalStateKey(cluster: string, signal: string): TableKey {
  return { pk: `${SIGNAL_STATE_PREFIX}${cluster}`, sk: signal };
}

/** The prefix of every budget partition (hourly budgets and limit notices). */
export const BUDGET_PREFIX = 'BUDGET#';

/** Partition of a cluster's hourly budgets of incidents and executions, and of its limit notices. */
export function budgetPartition(cluster: string): string {
  return `${BUDGET_PREFIX}${cluster}`;
}

/** The clock hour of `at` (epoch ms) as budgets name it: `2026-11-29T10`. */
export function budgetHour(at: number): string {
  return new Date(at).toISOString().slice(0, 13);
}

/**
 * Whose budget: a cluster's, per rank (provenance.ts), per fleet account, and for tenant rank per
 * namespace. The node rank of the hub's own account keeps the key it always had.
 */
export interface BudgetScope {
  readonly cluster: string;
  /** @default 'node' */
  readonly rank?: 'aws' | 'node' | 'tenant';
  /** A fleet member's account (absent: the hub's own). */
  readonly account?: string;
  /** Tenant rank: the namespace (absent: every namespace of the cluster together). */
  readonly namespace?: string;
}

/** What a budget counts: incidents opened, executions started, tenant signals corroborated. */
export type BudgetKind = 'incidents' | 'executions' | 'signals';

/** One scope's count of `kind` in the clock hour of `at`. */
export function budgetKey(scope: string | BudgetScope, kind: BudgetKind, at: number): TableKey {
  const s = typeof scope === 'string' ? { cluster: scope } : scope;
  const rank = s.rank ?? 'node';
  const parts = [
    ...(rank === 'node' && !s.account ? [] : [rank]),
    ...(s.account ? [`acct:${s.account}`] : []),
    ...(s.namespace !== undefined ? [`ns:${s.namespace}`] : []),
  ];
  return { pk: budgetPartition(s.cluster), sk: ['HOUR', budgetHour(at), ...parts, kind].join('#') };
}

/** The one notice of a cluster's clock hour (per rank) that says what its limits dropped. */
export function limitNoticeKey(cluster: string, at: number, rank: 'aws' | 'node' | 'tenant' = 'node'): TableKey {
  return { pk: budgetPartition(cluster), sk: `NOTICE#${budgetHour(at)}${rank === 'node' ? '' : `#${rank}`}` };
}

/**
 * Every kind of row, as the partition-key patterns IAM matches (`dynamodb:LeadingKeys`, StringLike):
 * each function may write only the kinds it owns (lib/constructs/table-rows.ts, docs/security.md).
 */
export const ROW_PARTITIONS = {
  /** The deployment's configuration documents (the config writer at deploy). */
  config: [CONFIG_PARTITION],
  /** Approval grants of request digests (the approval endpoint). */
  grants: [`${GRANT_PREFIX}*`],
  /** Pending approvals with their task token (the approval request function; the endpoint marks the answer). */
  approvals: [`${approvalKey('').pk}*`],
  /** A node's evidence (its probe, as the door ran it) and its cooldowns (the door). */
  nodes: ['NODE#*'],
  /** The door's ledger: every call, its verdict and result (the door). */
  ledger: ['LEDGER#*'],
  /** The door's reservations and action history: cap slots, target cooldowns, the cluster's actions (the door). */
  reservations: [`${capSlotsPartition('')}*`, `${targetCooldownKey('').pk}*`, `${clusterActionsPartition('')}*`],
  /** Incident history, one row per run, append-only (Summarize). */
  history: [`${HISTORY_PREFIX}*`],
  /** Open incidents (the detection paths open and join them; Summarize records a run's close). */
  incidents: [`${INCIDENT_PREFIX}*`],
  /** Per-incident execution locks (Open incident takes, Summarize releases). */
  locks: [`${lockKey('').pk}*`],
  /** The breaker's nodes with an open incident of a class (Decide). */
  activeNodes: ['ACTIVE#*'],
  /** Hourly budgets and limit notices (the detection paths). */
  budgets: [`${budgetPartition('')}*`],
  /** The change index of breaking CloudTrail changes (ingest, fleet intake). */
  changes: [`${CHANGE_PREFIX}*`],
  /** The events reader's state and counted events (the events reader). */
  eventsReader: [`${EVENTS_STATE_PREFIX}*`, `${EVENT_SEEN_PREFIX}*`],
  /** The signal self-check's last statuses (the self-check). */
  signals: [`${SIGNAL_STATE_PREFIX}*`],
} as const satisfies Record<string, readonly string[]>;

/** A kind of row of the incident table. */
export type RowKind = keyof typeof ROW_PARTITIONS;
