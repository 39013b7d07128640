import type { FailureClass } from '../contract/failure-classes.js';
import type { Entities } from '../detect/entities.js';

/** The fields of an EventBridge "AWS API Call via CloudTrail" event that pod-doctor reads. */
export interface CloudTrailEvent {
  readonly id?: string;
  readonly source: string;
  readonly 'detail-type': string;
  readonly account?: string;
  readonly region?: string;
  readonly time?: string;
  readonly detail: {
    readonly eventSource: string;
    readonly eventName: string;
    readonly eventTime?: string;
    readonly awsRegion?: string;
    readonly errorCode?: string;
    readonly errorMessage?: string;
    readonly userAgent?: string;
    readonly eventID?: string;
    readonly userIdentity?: {
      readonly arn?: string;
      readonly type?: string;
      readonly principalId?: string;
      /** Set on AWS service events ("AWS Internal"). */
      readonly invokedBy?: string;
    };
    readonly requestParameters?: Record<string, unknown> | null;
    /** AwsServiceEvent details, e.g. the images an ECR lifecycle policy expired. */
    readonly serviceEventDetails?: Record<string, unknown> | null;
  };
}

export interface CloudTrailClassification {
  readonly class: FailureClass;
  /** `failure`: an API call failed now · `change`: a change that will break pulls or networking. */
  readonly kind: 'failure' | 'change' | 'ignored';
  readonly cause: string | null;
  readonly entities: Entities;
  /** Who made the call (CloudTrail userIdentity.arn). */
  readonly actor?: string;
}

/** EC2 calls the VPC CNI makes to give pods addresses. */
export const CNI_EC2_CALLS = [
  'AssignPrivateIpAddresses',
  'AssignIpv6Addresses',
  'CreateNetworkInterface',
  'AttachNetworkInterface',
] as const;
/** Read-only ECR calls a node makes to pull; a denial is a registry-auth failure. */
export const ECR_PULL_CALLS = ['BatchGetImage', 'GetDownloadUrlForLayer', 'GetAuthorizationToken'] as const;
/** Changes that break image pulls or pod networking. */
export const CHANGE_CALLS = {
  'iam.amazonaws.com': ['DetachRolePolicy', 'DeleteRolePolicy', 'PutRolePolicy'],
  'ec2.amazonaws.com': ['RevokeSecurityGroupIngress', 'DeleteVpcEndpoints', 'ModifyVpcEndpoint'],
  'ecr.amazonaws.com': ['SetRepositoryPolicy', 'DeleteRepositoryPolicy'],
} as const;

const ECR_READ_POLICIES =
  /AmazonEC2ContainerRegistryReadOnly|AmazonEC2ContainerRegistryPullOnly|AmazonEC2ContainerRegistryPowerUser/;
const CNI_POLICIES = /AmazonEKS_CNI_Policy|AmazonEKS_CNI_IPv6_Policy/;

function param(e: CloudTrailEvent, key: string): string | undefined {
  const v = e.detail.requestParameters?.[key];
  return typeof v === 'string' ? v : undefined;
}

function ec2ErrorClass(code: string): { class: FailureClass; cause: string } | null {
  switch (code) {
    case 'InsufficientCidrBlocks':
      return {
        class: 'cidr-fragmentation',
        cause: 'EC2 found no free aligned /28 block for a prefix (InsufficientCidrBlocks)',
      };
    case 'InsufficientFreeAddressesInSubnet':
      return {
        class: 'ip-exhaustion',
        cause: 'the subnet has no free IP addresses (InsufficientFreeAddressesInSubnet)',
      };
    case 'PrivateIpAddressLimitExceeded':
    case 'AttachmentLimitExceeded':
    case 'NetworkInterfaceLimitExceeded':
      return { class: 'ip-exhaustion', cause: `the instance hit an ENI/IP limit (${code})` };
    case 'UnauthorizedOperation':
    case 'AccessDenied':
      return {
        class: 'cni-permissions',
        cause: `the VPC CNI was denied ${code}: AmazonEKS_CNI_Policy missing from its role`,
      };
    default:
      return null;
  }
}

/** A failure class and its cause, before the event's entities and actor are added. */
type ClassAndCause = { class: FailureClass; cause: string };

/**
 * EC2's other answer for a full subnet: `Client.InvalidParameterValue` with "There aren't sufficient free Ipv4
 * addresses or prefixes" from CreateNetworkInterface, AttachNetworkInterface and AssignPrivateIpAddresses when more
 * addresses (or /28 prefixes) are asked for than the subnet has free; a subnet whose free space is fragmented answers
 * InsufficientCidrBlocks instead (AWS Support, quoted in https://github.com/cilium/cilium/pull/31016; the VPC CNI's
 * own log of it: https://github.com/aws/amazon-vpc-cni-k8s/issues/3105). The code alone says only that a parameter
 * was refused, so the message decides; the Ipv6 wording is the same family, unconfirmed by a public record.
 */
const NO_FREE_ADDRESSES = /\bsufficient free ipv[46] addresses\b/i;
/** InsufficientCidrBlocks' message, for a refusal whose code is another (https://github.com/cilium/cilium/pull/30536). */
const NO_FREE_CIDR_BLOCKS = /\bdoes not have enough free cidr blocks\b/i;

/** What a refused VPC CNI call says about the subnet, by its code and, where the code is generic, its message. */
function ec2Refusal(code: string, message: string): ClassAndCause | null {
  const byCode = ec2ErrorClass(code);
  if (byCode) return byCode;
  if (NO_FREE_CIDR_BLOCKS.test(message))
    return { class: 'cidr-fragmentation', cause: `EC2 found no free aligned /28 block for a prefix (${code})` };
  if (NO_FREE_ADDRESSES.test(message))
    return {
      class: 'ip-exhaustion',
      cause: `the subnet has fewer free IP addresses or prefixes than the call asked for (${code})`,
    };
  return null;
}

/** Classifies an EventBridge CloudTrail event. Unknown or irrelevant events come back `ignored`. */
export function classifyCloudTrail(e: CloudTrailEvent): CloudTrailClassification {
  const d = e.detail;
  const actor = d.userIdentity?.arn;
  const base = requestEntities(e);
  const ignored = (cause: string | null = null): CloudTrailClassification => ({
    class: 'unknown',
    kind: 'ignored',
    cause,
    entities: base,
    actor,
  });

  if (d.eventSource === 'ec2.amazonaws.com' && (CNI_EC2_CALLS as readonly string[]).includes(d.eventName)) {
    if (!d.errorCode) return ignored();
    const code = d.errorCode.replace(/^Client\./, '').replace(/^Server\./, '');
    const c = ec2Refusal(code, d.errorMessage ?? '');
    if (!c) return ignored(`${d.eventName} failed with ${d.errorCode}`);
    return { ...c, kind: 'failure', entities: { ...base, errorCode: code }, actor };
  }

  if (d.eventSource === 'ecr.amazonaws.com' && (ECR_PULL_CALLS as readonly string[]).includes(d.eventName)) {
    if (!d.errorCode) return ignored();
    const repo = param(e, 'repositoryName');
    return {
      class: 'registry-auth',
      kind: 'failure',
      cause: `ECR denied ${d.eventName}${repo ? ` on ${repo}` : ''} (${d.errorCode}): node role ECR policy or repository policy`,
      entities: { ...base, errorCode: d.errorCode },
      actor,
    };
  }

  // A failed change changed nothing.
  if (d.errorCode) return ignored();
  const calls = (CHANGE_CALLS as Record<string, readonly string[]>)[d.eventSource];
  if (!calls?.includes(d.eventName)) return ignored();
  const change = breakingChange(e);
  if (!change) return ignored();
  return { class: change.class, kind: 'change', cause: change.cause, entities: base, actor };
}

/** The subnet and network interface the call names, when it names them. */
function requestEntities(e: CloudTrailEvent): Entities {
  const entities: Entities = {};
  const subnet = param(e, 'subnetId');
  if (subnet) entities.subnetId = subnet;
  const eni = param(e, 'networkInterfaceId');
  if (eni) entities.eniId = eni;
  return entities;
}

/** What a successful change call (one of {@link CHANGE_CALLS}) breaks, or null when it breaks nothing pod-doctor knows. */
function breakingChange(e: CloudTrailEvent): ClassAndCause | null {
  switch (e.detail.eventSource) {
    case 'iam.amazonaws.com':
      return roleChange(e);
    case 'ec2.amazonaws.com':
      return networkChange(e);
    case 'ecr.amazonaws.com':
      return repositoryPolicyChange(e);
    default:
      return null;
  }
}

/** A managed policy detached from, or an inline policy changed on, a role nodes or the VPC CNI may use. */
function roleChange(e: CloudTrailEvent): ClassAndCause | null {
  const role = param(e, 'roleName');
  const policyArn = param(e, 'policyArn') ?? '';
  switch (e.detail.eventName) {
    case 'DetachRolePolicy':
      if (ECR_READ_POLICIES.test(policyArn))
        return {
          class: 'registry-auth',
          cause: `${policyArn.split('/').pop()} detached from role ${role}: nodes using it can no longer pull from ECR`,
        };
      if (CNI_POLICIES.test(policyArn))
        return {
          class: 'cni-permissions',
          cause: `${policyArn.split('/').pop()} detached from role ${role}: the VPC CNI loses ENI/IP permissions`,
        };
      return null;
    case 'DeleteRolePolicy':
    case 'PutRolePolicy':
      return {
        class: 'registry-auth',
        cause: `inline policy ${param(e, 'policyName') ?? ''} ${e.detail.eventName === 'PutRolePolicy' ? 'changed' : 'deleted'} on role ${role}`,
      };
    default:
      return null;
  }
}

/** A security group rule revoked or a VPC endpoint deleted or modified: the path image pulls take. */
function networkChange(e: CloudTrailEvent): ClassAndCause | null {
  switch (e.detail.eventName) {
    case 'RevokeSecurityGroupIngress':
      return {
        class: 'registry-unreachable',
        cause: `ingress rule revoked from ${param(e, 'groupId') ?? 'a security group'} (an ECR endpoint security group loses 443 from nodes)`,
      };
    case 'DeleteVpcEndpoints':
      return {
        class: 'registry-unreachable',
        cause: 'VPC endpoints deleted (ECR / S3 endpoints carry image pulls from private subnets)',
      };
    case 'ModifyVpcEndpoint':
      return {
        class: 'registry-unreachable',
        cause: `VPC endpoint ${param(e, 'vpcEndpointId') ?? ''} modified (policy, security groups, private DNS or subnets)`,
      };
    default:
      return null;
  }
}

/** An ECR repository policy set or deleted: who may pull may have changed. */
function repositoryPolicyChange(e: CloudTrailEvent): ClassAndCause | null {
  const name = e.detail.eventName;
  if (name !== 'SetRepositoryPolicy' && name !== 'DeleteRepositoryPolicy') return null;
  return {
    class: 'registry-auth',
    cause: `ECR repository policy ${name === 'SetRepositoryPolicy' ? 'set' : 'deleted'} on ${param(e, 'repositoryName') ?? 'a repository'}`,
  };
}

/** EventBridge detail types of CloudTrail: API calls, and service events (ECR lifecycle expiries). */
export const CLOUDTRAIL_DETAIL_TYPES = ['AWS API Call via CloudTrail', 'AWS Service Event via CloudTrail'] as const;

/** The shape test: is this an EventBridge CloudTrail event? */
export function isCloudTrailEvent(v: unknown): v is CloudTrailEvent {
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  const detail = o.detail as Record<string, unknown> | undefined;
  return (
    (CLOUDTRAIL_DETAIL_TYPES as readonly unknown[]).includes(o['detail-type']) &&
    typeof o.source === 'string' &&
    typeof detail?.eventSource === 'string' &&
    typeof detail?.eventName === 'string'
  );
}
