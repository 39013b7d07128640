import type { EventPattern } from 'aws-cdk-lib/aws-events';
import { CHANGE_CALLS, CNI_EC2_CALLS, ECR_PULL_CALLS } from '../lambdas/core/cloudtrail.js';

const CLOUDTRAIL = 'AWS API Call via CloudTrail';

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
      detail: { eventSource: ['ec2.amazonaws.com'], eventName: [...CNI_EC2_CALLS], errorCode: [{ exists: true }] },
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
        eventName: [...CHANGE_CALLS['ec2.amazonaws.com']],
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: false,
  },
  {
    id: 'EcrPolicyChanges',
    description: 'pod-doctor: ECR repository policy set or deleted',
    pattern: {
      source: ['aws.ecr'],
      detailType: [CLOUDTRAIL],
      detail: {
        eventSource: ['ecr.amazonaws.com'],
        eventName: [...CHANGE_CALLS['ecr.amazonaws.com']],
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
        eventName: [...CHANGE_CALLS['iam.amazonaws.com']],
        errorCode: [{ exists: false }],
      },
    },
    readOnlyCalls: false,
    usEast1Only: true,
  },
];
