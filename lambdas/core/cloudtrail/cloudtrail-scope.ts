import type { Entities } from '../detect/entities.js';
import type { CloudTrailClassification, CloudTrailEvent } from './cloudtrail.js';

/**
 * What the account says about the resources an event names, looked up by the ingest path. A field
 * left undefined could not be looked up: the event is then kept (noise over silence), never dropped.
 */
export interface AccountFacts {
  /** Node roles and aws-node roles of the configured clusters: role name → cluster names. */
  readonly knownRoles?: ReadonlyMap<string, readonly string[]>;
  /** Security groups of the VPC endpoints image pulls go through (ECR api/dkr, S3). */
  readonly endpointSecurityGroups?: ReadonlySet<string>;
  /** The node the event is about, resolved from its instance or network interface. */
  readonly node?: { readonly instanceId: string; readonly cluster?: string };
}

/** What to look up for an event before deciding whether it concerns pod-doctor. */
export interface FactsNeeded {
  readonly roles: boolean;
  readonly endpointSecurityGroups: boolean;
  /** An instance id the event names (request or the EC2 role session name). */
  readonly instanceId?: string;
  /** A network interface to resolve to its instance when no instance id is named. */
  readonly eniId?: string;
}

/** The decision for one classified event. */
export interface CloudTrailScope {
  readonly keep: boolean;
  readonly reason: string;
  /** The cluster the event belongs to, when the role or node names one. */
  readonly cluster?: string;
  readonly entities: Entities;
}

const ROLE_CHANGES = new Set(['DetachRolePolicy', 'DeleteRolePolicy', 'PutRolePolicy']);

const param = (e: CloudTrailEvent, key: string): string | undefined => {
  const v = e.detail.requestParameters?.[key];
  return typeof v === 'string' ? v : undefined;
};

/** Which facts the decision for this event needs (nothing for ignored events). */
export function factsNeeded(e: CloudTrailEvent, c: CloudTrailClassification): FactsNeeded {
  const none: FactsNeeded = { roles: false, endpointSecurityGroups: false };
  if (c.kind === 'ignored') return none;
  if (ROLE_CHANGES.has(e.detail.eventName)) return { ...none, roles: true };
  if (e.detail.eventName === 'RevokeSecurityGroupIngress') return { ...none, endpointSecurityGroups: true };
  if (c.kind !== 'failure') return none;
  // The call's resources only, never its session name (assumed-role/<node role>/i-…): whoever may assume
  // the role names the session, so it never attributes a failure to a node (provenance.ts).
  const instanceId = param(e, 'instanceId');
  return { ...none, instanceId, eniId: instanceId ? undefined : c.entities.eniId };
}

/**
 * Does this classified event concern the configured clusters? Role policy changes count only on
 * their node and aws-node roles, ingress revocations only on endpoint security groups; failures
 * carry the node (and its cluster) when the event names an instance or a network interface.
 */
export function scopeCloudTrail(e: CloudTrailEvent, c: CloudTrailClassification, facts: AccountFacts): CloudTrailScope {
  const entities: Entities = { ...c.entities };
  if (c.kind === 'ignored') return { keep: false, reason: 'not a failure or breaking change', entities };
  if (ROLE_CHANGES.has(e.detail.eventName)) {
    const role = param(e, 'roleName') ?? '';
    if (!facts.knownRoles) return { keep: true, reason: 'known roles could not be listed: kept', entities };
    const clusters = facts.knownRoles.get(role);
    return clusters
      ? { keep: true, reason: `role ${role} is a node or aws-node role`, cluster: clusters[0], entities }
      : { keep: false, reason: `role ${role} is not a node or aws-node role of a configured cluster`, entities };
  }
  if (e.detail.eventName === 'RevokeSecurityGroupIngress') {
    const group = param(e, 'groupId') ?? '';
    if (!facts.endpointSecurityGroups)
      return { keep: true, reason: 'endpoint security groups could not be listed: kept', entities };
    return facts.endpointSecurityGroups.has(group)
      ? { keep: true, reason: `${group} guards a VPC endpoint image pulls use`, entities }
      : { keep: false, reason: `${group} is not a security group of an ECR or S3 endpoint`, entities };
  }
  const instanceId = facts.node?.instanceId ?? (c.kind === 'failure' ? factsNeeded(e, c).instanceId : undefined);
  if (instanceId) entities.instanceId = instanceId;
  return { keep: true, reason: c.kind, cluster: facts.node?.cluster, entities };
}
