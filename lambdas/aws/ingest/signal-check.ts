import type { CloudTrailClient } from '@aws-sdk/client-cloudtrail';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventsStateKey, signalStateKey } from '../../core/contract/incident-table.js';
import {
  eventsReading,
  eventsWithoutApi,
  type SignalReading,
  type SignalStatus,
  type SignalTransition,
  transitionOf,
} from '../../core/incident/signal-health.js';
import { outboundText } from '../../core/text/outbound.js';
import { snsSubject } from '../../core/text/sns-subject.js';
import { applicationSignal, dataplaneSignal, guardedReading, trailSignal } from './signal-readers.js';

const STATUSES: readonly SignalStatus[] = ['ok', 'silent', 'absent', 'unknown'];

export interface SignalCheckDeps {
  readonly clusters: readonly string[];
  /** Those of `clusters` whose Kubernetes API pod-doctor does not reach (`kubernetesApi: false`). @default none */
  readonly withoutApi?: readonly string[];
  readonly region: string;
  readonly logs: CloudWatchLogsClient;
  readonly cloudtrail: CloudTrailClient;
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Sends one notification (the SNS topic in production). */
  readonly notify: (subject: string, message: string) => Promise<void>;
  readonly now: () => number;
}

export interface ClusterSignals {
  readonly cluster: string;
  readonly readings: readonly SignalReading[];
  /** The changes notified by this run (at most one per signal that changed). */
  readonly notified: readonly SignalTransition[];
}

/**
 * Every configured cluster's signals, read now; each signal whose status changed is recorded with a
 * conditional write, and only the run whose write changed it notifies: a silence is notified once,
 * when it starts, and once more when the signal comes back, whatever the schedule.
 */
export async function checkSignals(deps: SignalCheckDeps): Promise<ClusterSignals[]> {
  const now = deps.now();
  const trail = await guardedReading('cloudtrail', () => trailSignal(deps.cloudtrail, deps.region));
  const out: ClusterSignals[] = [];
  for (const cluster of deps.clusters) {
    const readings = [
      deps.withoutApi?.includes(cluster)
        ? eventsWithoutApi()
        : await guardedReading('kubernetes-events', async () => eventsReading(await eventsState(deps, cluster), now)),
      await guardedReading('dataplane-logs', () => dataplaneSignal(deps.logs, cluster, now)),
      await guardedReading('application-logs', () => applicationSignal(deps.logs, cluster, now)),
      trail,
    ];
    const notified: SignalTransition[] = [];
    for (const r of readings) {
      if (r.status === 'unknown') continue;
      const previous = await record(deps, cluster, r, now);
      if (previous === 'unchanged') continue;
      const t = transitionOf(cluster, previous, r, readings);
      if (!t) continue;
      await deps.notify(snsSubject(outboundText(t.subject)), outboundText(t.message));
      notified.push(t);
    }
    out.push({ cluster, readings, notified });
  }
  return out;
}

async function eventsState(deps: SignalCheckDeps, cluster: string) {
  const item = (await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: eventsStateKey(cluster) }))).Item;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  return item
    ? {
        lastReadAt: num(item.lastReadAt),
        lastAttemptAt: num(item.lastAttemptAt),
        lastError: typeof item.lastError === 'string' ? item.lastError : undefined,
      }
    : undefined;
}

/**
 * Records the signal's status when it changed: the previous status (undefined: first record), or
 * `unchanged` when it is the same (or another run recorded this change first).
 */
async function record(
  deps: SignalCheckDeps,
  cluster: string,
  r: SignalReading,
  now: number,
): Promise<SignalStatus | undefined | 'unchanged'> {
  try {
    const res = await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: signalStateKey(cluster, r.signal),
        UpdateExpression: 'SET #status = :to, since = :now, detail = :detail',
        ConditionExpression: 'attribute_not_exists(#status) OR #status <> :to',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':to': r.status, ':now': now, ':detail': outboundText(r.detail).slice(0, 1000) },
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    const before = res.Attributes?.status;
    return STATUSES.find((s) => s === before);
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return 'unchanged';
    throw e;
  }
}
