import type { CloudTrailEvent } from './cloudtrail.js';

/**
 * A breaking change, as the ingest path indexes it when EventBridge delivers it: which resources it
 * touched (role name, security group, VPC endpoint, repository, cluster), what, who and when.
 * `change.recent` and `ecr.image-exists` read these instead of calling CloudTrail LookupEvents.
 */
export interface ChangeRecord {
  readonly eventId: string;
  readonly eventName: string;
  /** Epoch ms of the call (CloudTrail eventTime). */
  readonly at: number;
  readonly actor: string;
  /** Resource names and ids the change touched (the index keys). */
  readonly resources: readonly string[];
  /** One line for a human. */
  readonly summary: string;
  /** Image tags and digests a deletion or lifecycle expiry removed (ECR only). */
  readonly images?: readonly string[];
  /** The role and managed policy of an IAM change (what a revert needs). */
  readonly roleName?: string;
  readonly policyArn?: string;
}

/** Reads indexed changes of one resource, newest first, never more than `limit`. */
export interface ChangeReader {
  recent(resource: string, since: Date, limit: number): Promise<ChangeRecord[]>;
}

/** Changes worth indexing, by event source (EventBridge rules deliver exactly these). */
export const INDEXED_CHANGES: Readonly<Record<string, readonly string[]>> = {
  'iam.amazonaws.com': ['DetachRolePolicy', 'DeleteRolePolicy', 'PutRolePolicy'],
  'ec2.amazonaws.com': ['RevokeSecurityGroupIngress', 'DeleteVpcEndpoints', 'ModifyVpcEndpoint'],
  'ecr.amazonaws.com': ['SetRepositoryPolicy', 'DeleteRepositoryPolicy', 'BatchDeleteImage', 'PolicyExecutionEvent'],
  'eks.amazonaws.com': ['DeleteAccessEntry', 'UpdateAddon', 'DeleteAddon'],
};

/** Index entries kept this long (the longest change.recent lookback is 90 days). */
export const CHANGE_RETENTION_DAYS = 90;

const str = (o: unknown, key: string): string | undefined => {
  const v = (o as Record<string, unknown> | null | undefined)?.[key];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

/** VPC endpoint ids anywhere in the request (DeleteVpcEndpoints nests them in a list). */
function endpointIds(params: unknown): string[] {
  return [...new Set(JSON.stringify(params ?? {}).match(/\bvpce-[0-9a-f]{8,17}\b/g) ?? [])];
}

/** Tags and digests an ECR deletion or lifecycle expiry removed. */
function removedImages(e: CloudTrailEvent): string[] {
  const d = e.detail;
  if (d.eventName === 'PolicyExecutionEvent') {
    const actions = (d.serviceEventDetails?.lifecycleEventImageActions ?? []) as {
      lifecycleEventImage?: { digest?: string; tagList?: string[] };
    }[];
    return actions.flatMap((a) => [...(a.lifecycleEventImage?.tagList ?? []), a.lifecycleEventImage?.digest ?? '']);
  }
  const ids = (d.requestParameters?.imageIds ?? []) as { imageTag?: string; imageDigest?: string }[];
  return ids.flatMap((i) => [i.imageTag ?? '', i.imageDigest ?? '']);
}

function resourcesOf(e: CloudTrailEvent): string[] {
  const p = e.detail.requestParameters ?? {};
  switch (e.detail.eventSource) {
    case 'iam.amazonaws.com':
      return [str(p, 'roleName') ?? ''];
    case 'ec2.amazonaws.com':
      return [str(p, 'groupId') ?? '', ...endpointIds(p)];
    case 'ecr.amazonaws.com':
      return [str(p, 'repositoryName') ?? str(e.detail.serviceEventDetails, 'repositoryName') ?? ''];
    case 'eks.amazonaws.com':
      return [str(p, 'name') ?? str(p, 'clusterName') ?? ''];
    default:
      return [];
  }
}

function summaryOf(e: CloudTrailEvent, resources: readonly string[], images: readonly string[]): string {
  const d = e.detail;
  const p = d.requestParameters ?? {};
  const what = str(p, 'policyArn')?.split('/').pop() ?? str(p, 'policyName') ?? str(p, 'addonName');
  const removed = images.length ? ` (${images.slice(0, 5).join(', ')}${images.length > 5 ? ', …' : ''})` : '';
  const verb = d.eventName === 'PolicyExecutionEvent' ? 'ECR lifecycle policy expired images' : d.eventName;
  return `${verb}${what ? ` ${what}` : ''} on ${resources.join(', ')}${removed}`;
}

function iamTarget(p: unknown): { roleName?: string; policyArn?: string } {
  const roleName = str(p, 'roleName');
  const policyArn = str(p, 'policyArn');
  return { ...(roleName ? { roleName } : {}), ...(policyArn ? { policyArn } : {}) };
}

/** The index entry of a successful breaking change; undefined for anything else. */
export function changeRecord(e: CloudTrailEvent): ChangeRecord | undefined {
  const d = e.detail;
  if (d.errorCode || !INDEXED_CHANGES[d.eventSource]?.includes(d.eventName)) return undefined;
  const resources = [...new Set(resourcesOf(e).filter(Boolean))];
  if (!resources.length) return undefined;
  const at = Date.parse(d.eventTime ?? e.time ?? '');
  if (!Number.isFinite(at)) return undefined;
  const images = [...new Set(removedImages(e).filter(Boolean))];
  const actor =
    d.eventName === 'PolicyExecutionEvent'
      ? 'ECR lifecycle policy'
      : (d.userIdentity?.arn ?? d.userIdentity?.invokedBy ?? 'unknown');
  return {
    eventId: d.eventID ?? e.id ?? `${d.eventName}-${at}`,
    eventName: d.eventName,
    at,
    actor,
    resources,
    summary: summaryOf(e, resources, images),
    ...(images.length ? { images } : {}),
    ...(d.eventSource === 'iam.amazonaws.com' ? iamTarget(d.requestParameters) : {}),
  };
}

/**
 * A CloudTrail record as CloudTrail itself stores it (LookupEvents' CloudTrailEvent, trail files) in
 * the EventBridge envelope the rest of pod-doctor reads.
 */
export function fromCloudTrailRecord(record: Record<string, unknown>): CloudTrailEvent {
  const source = String(record.eventSource ?? '').replace(/\.amazonaws\.com$/, '');
  return {
    source: `aws.${source}`,
    'detail-type':
      record.eventType === 'AwsServiceEvent' ? 'AWS Service Event via CloudTrail' : 'AWS API Call via CloudTrail',
    detail: record as unknown as CloudTrailEvent['detail'],
  };
}

/** An in-memory change reader over records (the CLI's CloudTrail look-ups, the recorded account). */
export function changeReaderOf(records: readonly ChangeRecord[]): ChangeReader {
  return {
    recent: async (resource, since, limit) =>
      records
        .filter((r) => r.resources.includes(resource) && r.at >= since.getTime())
        .sort((a, b) => b.at - a.at)
        .slice(0, limit),
  };
}
