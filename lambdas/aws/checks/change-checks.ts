import type { ChangeReader, ChangeRecord } from '../../core/cloudtrail/change-records.js';
import { type Finding, finding } from '../../core/contract/findings.js';

/** At most this many indexed changes are read per resource (one Query page each). */
export const MAX_CHANGES_PER_RESOURCE = 20;

export interface ChangeScope {
  /** Resource names/ids that matter for this incident (role name, SG ids, endpoint ids, repository, cluster). */
  readonly resources: readonly string[];
  readonly lookbackHours: number;
}

/**
 * change.recent: breaking changes to the involved resources within the lookback window, read from the
 * change index the ingest path fills as EventBridge delivers CloudTrail events (one bounded Query per
 * resource; no CloudTrail LookupEvents on the workflow's critical path).
 */
export async function checkRecentChanges(changes: ChangeReader, scope: ChangeScope, now: Date): Promise<Finding> {
  const id = 'change.recent';
  const since = new Date(now.getTime() - scope.lookbackHours * 3_600_000);
  const wanted = [...new Set(scope.resources.filter(Boolean))];
  const pages = await Promise.all(wanted.map((r) => changes.recent(r, since, MAX_CHANGES_PER_RESOURCE)));
  const byId = new Map<string, ChangeRecord>();
  for (const c of pages.flat()) if (c.at <= now.getTime()) byId.set(c.eventId, c);
  const hits = [...byId.values()].sort((a, b) => b.at - a.at);
  const evidence = {
    lookbackHours: scope.lookbackHours,
    resources: wanted,
    source: 'change index (CloudTrail events delivered by EventBridge)',
    changes: hits.slice(0, 20).map((h) => ({
      at: new Date(h.at).toISOString(),
      event: h.eventName,
      by: h.actor,
      resources: h.resources.filter((r) => wanted.includes(r)),
      eventId: h.eventId,
      summary: h.summary,
      // What a revert needs (the remedy reads them from DetachRolePolicy hits).
      ...(h.roleName ? { roleName: h.roleName } : {}),
      ...(h.policyArn ? { policyArn: h.policyArn } : {}),
    })),
  };
  if (hits.length === 0)
    return finding(
      id,
      'pass',
      `no breaking change to the involved resources in the last ${scope.lookbackHours} h`,
      evidence,
    );
  const h = evidence.changes[0];
  return finding(
    id,
    'warn',
    `likely caused by: ${h.event} on ${h.resources.join(', ')} by ${h.by} at ${h.at}${hits.length > 1 ? ` (+${hits.length - 1} more)` : ''}`,
    evidence,
    `review CloudTrail event ${h.eventId} and revert the change if it was not intended`,
  );
}
