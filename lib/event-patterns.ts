import type { EventPattern } from 'aws-cdk-lib/aws-events';
import { INDEXED_CHANGES } from '../lambdas/core/cloudtrail/change-records.js';
import { CNI_EC2_CALLS, ECR_PULL_CALLS } from '../lambdas/core/cloudtrail/cloudtrail.js';

const CLOUDTRAIL = 'AWS API Call via CloudTrail';
/** Events AWS services raise themselves (e.g. an ECR lifecycle policy expiring images). */
const SERVICE_EVENT = 'AWS Service Event via CloudTrail';
/** EC2 answers a DryRun request that would have succeeded with this error code (not a failure). */
export const EC2_DRY_RUN = 'Client.DryRunOperation';

/** EventBridge rule patterns, as data: each entry becomes one rule. */
export interface CloudTrailRuleSpec {
  readonly id: string;
  readonly description: string;
  readonly pattern: EventPattern;
  /** Read-only calls reach EventBridge only with ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS. */
  readonly readOnlyCalls: boolean;
  /** IAM is a global service: its CloudTrail events reach EventBridge in us-east-1 only. */
  readonly usEast1Only: boolean;
}

export const CLOUDTRAIL_RULES: readonly CloudTrailRuleSpec[] = [
  {
    id: 'CniIpAssignmentFailures',
    description:
      'pod-doctor: EC2 calls of the VPC CNI that failed (InsufficientCidrBlocks, InsufficientFreeAddressesInSubnet, UnauthorizedOperation ...)',
    pattern: {
      source: ['aws.ec2'],
      detailType: [CLOUDTRAIL],
      // anything-but matches only an errorCode that is present: failed calls, dry runs excluded.
      detail: {
        eventSource: ['ec2.amazonaws.com'],
        eventName: [...CNI_EC2_CALLS],
        errorCode: [{ 'anything-but': [EC2_DRY_RUN] }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: false,
  },
  {
    id: 'NetworkChanges',
    description: 'pod-doctor: security group ingress revoked, VPC endpoints deleted or modified',
    pattern: {
      source: ['aws.ec2'],
      detailType: [CLOUDTRAIL],
      detail: {
        eventSource: ['ec2.amazonaws.com'],
        eventName: [...INDEXED_CHANGES['ec2.amazonaws.com']],
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: false,
  },
  {
    id: 'EcrPolicyChanges',
    description: 'pod-doctor: ECR repository policy set or deleted, images deleted',
    pattern: {
      source: ['aws.ecr'],
      detailType: [CLOUDTRAIL],
      detail: {
        eventSource: ['ecr.amazonaws.com'],
        eventName: INDEXED_CHANGES['ecr.amazonaws.com'].filter((n) => n !== 'PolicyExecutionEvent'),
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: false,
  },
  {
    id: 'EcrLifecycleExpiries',
    description: 'pod-doctor: images expired by an ECR lifecycle policy (indexed for change attribution)',
    pattern: {
      source: ['aws.ecr'],
      detailType: [SERVICE_EVENT],
      detail: { eventSource: ['ecr.amazonaws.com'], eventName: ['PolicyExecutionEvent'] },
    },
    // The service event is recorded with readOnly: true.
    readOnlyCalls: true,
    usEast1Only: false,
  },
  {
    id: 'EksAccessChanges',
    description: 'pod-doctor: EKS access entries deleted, add-ons updated or deleted (indexed for change attribution)',
    pattern: {
      source: ['aws.eks'],
      detailType: [CLOUDTRAIL],
      detail: {
        eventSource: ['eks.amazonaws.com'],
        eventName: [...INDEXED_CHANGES['eks.amazonaws.com']],
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: false,
  },
  {
    id: 'EcrPullDenials',
    description: 'pod-doctor: ECR pull calls denied (read-only calls: needs all management events)',
    pattern: {
      source: ['aws.ecr'],
      detailType: [CLOUDTRAIL],
      detail: { eventSource: ['ecr.amazonaws.com'], eventName: [...ECR_PULL_CALLS], errorCode: [{ exists: true }] },
    },
    readOnlyCalls: true,
    usEast1Only: false,
  },
  {
    id: 'NodeRolePolicyChanges',
    description: 'pod-doctor: role policies detached, deleted or changed (IAM events arrive in us-east-1 only)',
    pattern: {
      source: ['aws.iam'],
      detailType: [CLOUDTRAIL],
      detail: {
        eventSource: ['iam.amazonaws.com'],
        eventName: [...INDEXED_CHANGES['iam.amazonaws.com']],
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: true,
  },
];
