import type { Reject } from '../../core/incident/ingest.js';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../../core/incident/ingest-limits.js';
import { limitNotice } from '../../core/incident/limit-notice.js';
import type { IncidentBudget } from './incident-budget.js';
import type { DroppedCandidate } from './open-incidents.js';

/** Where what limits dropped is kept, counted and noticed (the ingest path, the events reader, the sweep, the fleet). */
export interface DroppedDeps {
  readonly rejects: {
    keep(
      rejects: readonly Reject[],
      requestId: string,
      now: number,
      prefix?: 'rejected' | 'dropped',
    ): Promise<string | undefined>;
  };
  readonly budget?: IncidentBudget;
  readonly notices?: { publish(subject: string, message: string): Promise<void> };
  readonly limits?: IngestLimits;
}

/**
 * What limits dropped: kept under `dropped/` (one object per invocation), counted against each
 * cluster's hour, and noticed once per cluster and hour (the first invocation of the hour to drop).
 */
export async function keepDropped(
  dropped: readonly DroppedCandidate[],
  requestId: string,
  now: number,
  deps: DroppedDeps,
): Promise<{ droppedKey?: string; noticesSent: string[] }> {
  if (dropped.length === 0) return { noticesSent: [] };
  const droppedKey = await deps.rejects.keep(
    dropped.map((d) => ({
      reason: `not evaluated: limit ${d.limit}`,
      record: JSON.stringify({
        cluster: d.cluster,
        key: d.key,
        class: d.class,
        count: d.count,
        rank: d.rank,
        ...(d.namespace ? { namespace: d.namespace } : {}),
        samples: d.samples,
      }),
    })),
    requestId,
    now,
    'dropped',
  );
  const noticesSent: string[] = [];
  // One notice per cluster, rank and hour: a tenant flood's notice never uses up the node rank's.
  const groups = new Map<string, DroppedCandidate[]>();
  for (const d of dropped) {
    const k = `${d.cluster}\u0000${d.rank}`;
    const group = groups.get(k) ?? [];
    group.push(d);
    groups.set(k, group);
  }
  for (const mine of groups.values()) {
    const { cluster, rank } = mine[0];
    const first = deps.budget ? await deps.budget.noteDropped(cluster, mine.length, now, rank) : true;
    if (!first || !deps.notices) continue;
    const n = limitNotice(cluster, mine, {
      keptAt: droppedKey,
      limits: deps.budget?.limits ?? deps.limits ?? DEFAULT_INGEST_LIMITS,
    });
    await deps.notices.publish(n.subject, n.message);
    noticesSent.push(cluster);
  }
  return { droppedKey, noticesSent };
}
