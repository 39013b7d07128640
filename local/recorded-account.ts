import type { Event } from '@aws-sdk/client-cloudtrail';
import type {
  Instance,
  InstanceTypeInfo,
  NetworkInterface,
  RouteTable,
  SecurityGroup,
  Subnet,
  SubnetCidrReservation,
  VpcEndpoint,
} from '@aws-sdk/client-ec2';
import type { ImageDetail, Repository } from '@aws-sdk/client-ecr';
import type { AccessEntry, Addon, AddonInfo, Cluster, Nodegroup, PodIdentityAssociation } from '@aws-sdk/client-eks';
import type { InstanceProfile } from '@aws-sdk/client-iam';

/**
 * A recorded account, in the SDK's own types: what the EC2, IAM, EKS, ECR and CloudTrail APIs
 * answered for one cluster. Checks run against it through aws-sdk-client-mock (see mock-account.ts).
 */
export interface AccountSnapshot {
  readonly accountId: string;
  readonly region: string;
  instances: Instance[];
  instanceProfiles: InstanceProfile[];
  /** Role name → attached managed policy ARNs and inline policy documents. */
  roles: Record<string, { attached: string[]; inline: Record<string, object>; permissionsBoundary?: string }>;
  /** Managed policy ARN → default version document. */
  managedPolicies: Record<string, object>;
  cluster: Cluster;
  addons: Addon[];
  addonVersions: AddonInfo[];
  nodegroups: Nodegroup[];
  podIdentityAssociations: PodIdentityAssociation[];
  /** EKS access entries (API authentication mode): Karpenter and self-managed node roles live here. */
  accessEntries?: AccessEntry[];
  /** Repository name → repository, policy text and images. */
  repositories: Record<string, { repository: Repository; policyText?: string; images: ImageDetail[] }>;
  routeTables: RouteTable[];
  vpcEndpoints: VpcEndpoint[];
  securityGroups: SecurityGroup[];
  subnets: Subnet[];
  networkInterfaces: NetworkInterface[];
  cidrReservations: Record<string, SubnetCidrReservation[]>;
  instanceTypes: InstanceTypeInfo[];
  cloudTrailEvents: Event[];
  /** ECR pull-through cache rules of the registry. */
  pullThroughCacheRules?: {
    ecrRepositoryPrefix: string;
    upstreamRegistryUrl: string;
    credentialArn?: string;
    createdAt?: Date;
  }[];
  /** Secrets Manager secrets by ARN, with whether their credentials log in to their upstream registry. */
  secrets?: Record<string, { loginValid: boolean }>;
}

export const ACCOUNT = '111122223333';
export const REGION = 'eu-west-1';
export const CLUSTER = 'prod-eu';
export const NODE_ROLE = 'eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF';
export const NODE_ID = 'i-0a1b2c3d4e5f60718';
export const NODE_DNS = 'ip-10-0-12-34.eu-west-1.compute.internal';
export const NODE_SG = 'sg-0123456789abcdef0';
export const ENDPOINT_SG = 'sg-0fedcba9876543210';
export const SUBNET = 'subnet-0a1b2c3d4e5f67890';
export const VPC = 'vpc-0a1b2c3d4e5f60000';
export const APP_REPO = 'payments/api';
export const APP_IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/${APP_REPO}:v2.3.1`;

export const ECR_READ_ONLY = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Action: [
        'ecr:GetAuthorizationToken',
        'ecr:BatchCheckLayerAvailability',
        'ecr:GetDownloadUrlForLayer',
        'ecr:GetRepositoryPolicy',
        'ecr:DescribeRepositories',
        'ecr:ListImages',
        'ecr:DescribeImages',
        'ecr:BatchGetImage',
        'ecr:GetLifecyclePolicy',
        'ecr:GetLifecyclePolicyPreview',
        'ecr:ListTagsForResource',
        'ecr:DescribeImageScanFindings',
      ],
      Resource: '*',
    },
  ],
};

export const EKS_CNI_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'AmazonEKSCNIPolicy',
      Effect: 'Allow',
      Action: [
        'ec2:AssignPrivateIpAddresses',
        'ec2:AttachNetworkInterface',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeInstances',
        'ec2:DescribeTags',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeSubnets',
        'ec2:DetachNetworkInterface',
        'ec2:ModifyNetworkInterfaceAttribute',
        'ec2:UnassignPrivateIpAddresses',
      ],
      Resource: '*',
    },
    {
      Sid: 'AmazonEKSCNIPolicyENITag',
      Effect: 'Allow',
      Action: ['ec2:CreateTags'],
      Resource: ['arn:aws:ec2:*:*:network-interface/*'],
    },
  ],
};
