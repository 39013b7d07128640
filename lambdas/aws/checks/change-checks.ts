import { type CloudTrailClient, type Event, paginateLookupEvents } from '@aws-sdk/client-cloudtrail';
import { type Finding, finding } from '../../core/findings.js';

/** Changes that break pulls or pod networking, and how to tell they touched our resources. */
export const BREAKING_EVENTS = [
  'DetachRolePolicy',
  'DeleteRolePolicy',
  'PutRolePolicy',
  'RevokeSecurityGroupIngress',
  'DeleteVpcEndpoints',
  'ModifyVpcEndpoint',
  'SetRepositoryPolicy',
  'DeleteRepositoryPolicy',
  'DeleteAccessEntry',
  'UpdateAddon',
  'DeleteAddon',
] as const;

export interface ChangeScope {
  /** Resource names/ids that matter for this incident (role name, SG ids, endpoint ids, repository, cluster). */
  readonly resources: readonly string[];
  readonly lookbackHours: number;
}

/** change.recent: CloudTrail LookupEvents over the lookback window for breaking changes to our resources. */
export async function checkRecentChanges(
  cloudtrail: CloudTrailClient,
  scope: ChangeScope,
  now: Date,
): Promise<Finding> {
  const id = 'change.recent';
  const start = new Date(now.getTime() - scope.lookbackHours * 3_600_000);
  const hits: ({ at?: string; event?: string; by?: string; resources: string[]; eventId?: string } & Reverts)[] = [];
  const wanted = scope.resources.filter(Boolean);
  for (const name of BREAKING_EVENTS) {
    // LookupEvents takes one attribute per call; the event name is the selective one.
    for await (const page of paginateLookupEvents(
      { client: cloudtrail, pageSize: 50 },
      { LookupAttributes: [{ AttributeKey: 'EventName', AttributeValue: name }], StartTime: start, EndTime: now },
    )) {
      for (const ev of page.Events ?? []) {
        const touched = touchedResources(ev, wanted);
        if (touched.length)
          hits.push({
            at: ev.EventTime?.toISOString(),
            event: ev.EventName,
            by: ev.Username,
            resources: touched,
            eventId: ev.EventId,
            ...reverts(ev),
          });
      }
    }
  }
  hits.sort((a, b) => String(b.at).localeCompare(String(a.at)));
  const evidence = { lookbackHours: scope.lookbackHours, resources: wanted, changes: hits.slice(0, 20) };
  if (hits.length === 0)
    return finding(
      id,
      'pass',
      `no breaking change to the involved resources in the last ${scope.lookbackHours} h`,
      evidence,
    );
  const h = hits[0];
  return finding(
    id,
    'warn',
    `likely caused by: ${h.event} on ${h.resources.join(', ')} by ${h.by ?? 'unknown'} at ${h.at}${hits.length > 1 ? ` (+${hits.length - 1} more)` : ''}`,
    evidence,
    `review CloudTrail event ${h.eventId} and revert the change if it was not intended`,
  );
}

function touchedResources(ev: Event, wanted: readonly string[]): string[] {
  const names = (ev.Resources ?? []).map((r) => r.ResourceName ?? '');
  const raw = ev.CloudTrailEvent ?? '';
  return wanted.filter((w) => names.some((n) => n === w || n.endsWith(`/${w}`)) || raw.includes(`"${w}"`));
}

/** What a revert needs from a DetachRolePolicy record (AWS-written request parameters). */
interface Reverts {
  roleName?: string;
  policyArn?: string;
}

function reverts(ev: Event): Reverts {
  if (ev.EventName !== 'DetachRolePolicy' || !ev.CloudTrailEvent) return {};
  try {
    const p = (JSON.parse(ev.CloudTrailEvent) as { requestParameters?: Record<string, unknown> }).requestParameters;
    const roleName = typeof p?.roleName === 'string' ? p.roleName : undefined;
    const policyArn = typeof p?.policyArn === 'string' ? p.policyArn : undefined;
    return { roleName, policyArn };
  } catch {
    return {};
  }
}
