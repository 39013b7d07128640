import type { Addon, AddonInfo } from '@aws-sdk/client-eks';
import {
  ACCOUNT,
  type AccountSnapshot,
  APP_REPO,
  CLUSTER,
  ECR_READ_ONLY,
  EKS_CNI_POLICY,
  ENDPOINT_SG,
  NODE_DNS,
  NODE_ID,
  NODE_ROLE,
  NODE_SG,
  REGION,
  SUBNET,
  VPC,
} from './recorded-account.js';

// The healthy recorded account every scenario starts from (scenarios then break one thing).

const arn = (service: string, resource: string, region = REGION) =>
  `arn:aws:${service}:${region}:${ACCOUNT}:${resource}`;

const WORKER_NODE_POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'WorkerNodePermissions',
      Effect: 'Allow',
      Action: ['ec2:DescribeInstances', 'ec2:DescribeRouteTables', 'eks:DescribeCluster'],
      Resource: '*',
    },
  ],
};

const addon = (addonName: string, addonVersion: string): Addon => ({
  addonName,
  clusterName: CLUSTER,
  status: 'ACTIVE',
  addonVersion,
  health: { issues: [] },
  addonArn: arn('eks', `addon/${CLUSTER}/${addonName}/4ec8a9e2-1d1a-b2c3-d4e5-f60718293a4b`),
  createdAt: new Date('2026-03-01T10:00:00Z'),
  modifiedAt: new Date('2026-10-01T10:00:00Z'),
  tags: {},
});

const addonInfo = (addonName: string, versions: string[], defaultVersion: string): AddonInfo => ({
  addonName,
  type: 'networking',
  owner: 'aws',
  addonVersions: versions.map((v) => ({
    addonVersion: v,
    architecture: ['amd64', 'arm64'],
    compatibilities: [{ clusterVersion: '1.33', platformVersions: ['*'], defaultVersion: v === defaultVersion }],
    requiresConfiguration: false,
  })),
});

/** An ECR interface endpoint in the node subnet: private DNS on, open endpoint policy, the endpoint SG. */
function interfaceEndpoint(id: string, service: 'ecr.api' | 'ecr.dkr') {
  return {
    VpcEndpointId: id,
    VpcEndpointType: 'Interface' as const,
    VpcId: VPC,
    ServiceName: `com.amazonaws.${REGION}.${service}`,
    State: 'Available' as const,
    PrivateDnsEnabled: true,
    Groups: [{ GroupId: ENDPOINT_SG, GroupName: 'ecr-endpoints' }],
    SubnetIds: [SUBNET],
    PolicyDocument: JSON.stringify({ Statement: [{ Effect: 'Allow', Principal: '*', Action: '*', Resource: '*' }] }),
  };
}

/** A healthy AL2023 managed node group in a private subnet with ECR/S3 endpoints and no NAT. */
export function healthyAccount(now = new Date('2026-11-29T10:00:00Z')): AccountSnapshot {
  return {
    accountId: ACCOUNT,
    region: REGION,
    ...healthyNode(),
    ...healthyIam(),
    ...healthyEks(now),
    ...healthyEcr(),
    ...healthyVpc(),
    ...healthyCapacity(),
    cloudTrailEvents: [],
  };
}

/** The node: one running m6i.large instance of the managed node group and its instance profile. */
function healthyNode(): Pick<AccountSnapshot, 'instances' | 'instanceProfiles'> {
  return {
    instances: [
      {
        InstanceId: NODE_ID,
        ImageId: 'ami-0c1d2e3f4a5b6c7d8',
        InstanceType: 'm6i.large',
        Architecture: 'x86_64',
        PrivateDnsName: NODE_DNS,
        PrivateIpAddress: '10.0.12.34',
        SubnetId: SUBNET,
        VpcId: VPC,
        Placement: { AvailabilityZone: 'eu-west-1a' },
        State: { Code: 16, Name: 'running' },
        IamInstanceProfile: {
          Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/eks-4ec8a9e2-1d1a-b2c3`,
          Id: 'AIPAEXAMPLEPROFILE01',
        },
        SecurityGroups: [{ GroupId: NODE_SG, GroupName: 'eks-cluster-sg-prod-eu-123456789' }],
        NetworkInterfaces: [
          {
            NetworkInterfaceId: 'eni-0123456789abcdef0',
            SubnetId: SUBNET,
            PrivateIpAddress: '10.0.12.34',
            Attachment: { DeviceIndex: 0, Status: 'attached', AttachmentId: 'eni-attach-0a1b2c3d4e5f60718' },
            Groups: [{ GroupId: NODE_SG, GroupName: 'eks-cluster-sg-prod-eu-123456789' }],
          },
        ],
        Tags: [
          { Key: 'eks:cluster-name', Value: CLUSTER },
          { Key: 'eks:nodegroup-name', Value: 'ng-1' },
          { Key: `kubernetes.io/cluster/${CLUSTER}`, Value: 'owned' },
        ],
      },
    ],
    instanceProfiles: [
      {
        InstanceProfileName: 'eks-4ec8a9e2-1d1a-b2c3',
        InstanceProfileId: 'AIPAEXAMPLEPROFILE01',
        Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/eks-4ec8a9e2-1d1a-b2c3`,
        Path: '/',
        CreateDate: new Date('2026-03-01T10:00:00Z'),
        Roles: [
          {
            RoleName: NODE_ROLE,
            RoleId: 'AROAEXAMPLEID',
            Arn: `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}`,
            Path: '/',
            CreateDate: new Date('2026-03-01T10:00:00Z'),
          },
        ],
      },
    ],
  };
}

/** The node role with the AWS managed worker, ECR read-only and CNI policies. */
function healthyIam(): Pick<AccountSnapshot, 'roles' | 'managedPolicies'> {
  return {
    roles: {
      [NODE_ROLE]: {
        attached: [
          'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
          'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
          'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy',
        ],
        inline: {},
      },
    },
    managedPolicies: {
      'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy': WORKER_NODE_POLICY,
      'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly': ECR_READ_ONLY,
      'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy': EKS_CNI_POLICY,
    },
  };
}

/** The cluster, its add-ons (current, supported versions) and the node group (AMI released this month). */
function healthyEks(
  now: Date,
): Pick<AccountSnapshot, 'cluster' | 'addons' | 'addonVersions' | 'nodegroups' | 'podIdentityAssociations'> {
  return {
    cluster: {
      name: CLUSTER,
      arn: arn('eks', `cluster/${CLUSTER}`),
      version: '1.33',
      status: 'ACTIVE',
      platformVersion: 'eks.9',
      // DescribeCluster's shape: https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html
      resourcesVpcConfig: {
        subnetIds: [SUBNET],
        securityGroupIds: [],
        clusterSecurityGroupId: NODE_SG,
        vpcId: VPC,
        endpointPublicAccess: true,
        endpointPrivateAccess: true,
        publicAccessCidrs: ['0.0.0.0/0'],
      },
      accessConfig: { bootstrapClusterCreatorAdminPermissions: true, authenticationMode: 'API_AND_CONFIG_MAP' },
    },
    addons: [
      addon('vpc-cni', 'v1.20.1-eksbuild.3'),
      addon('kube-proxy', 'v1.33.0-eksbuild.2'),
      addon('coredns', 'v1.12.1-eksbuild.2'),
    ],
    addonVersions: [
      addonInfo('vpc-cni', ['v1.20.1-eksbuild.3', 'v1.19.6-eksbuild.1'], 'v1.19.6-eksbuild.1'),
      addonInfo('kube-proxy', ['v1.33.0-eksbuild.2'], 'v1.33.0-eksbuild.2'),
      addonInfo('coredns', ['v1.12.1-eksbuild.2', 'v1.11.4-eksbuild.14'], 'v1.11.4-eksbuild.14'),
    ],
    nodegroups: [
      {
        nodegroupName: 'ng-1',
        clusterName: CLUSTER,
        nodegroupArn: arn('eks', `nodegroup/${CLUSTER}/ng-1/0ec8a9e2-1d1a-b2c3-d4e5-f60718293a4b`),
        amiType: 'AL2023_x86_64_STANDARD',
        releaseVersion: `1.33.5-${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}01`,
        version: '1.33',
        status: 'ACTIVE',
        nodeRole: `arn:aws:iam::${ACCOUNT}:role/${NODE_ROLE}`,
        subnets: [SUBNET],
        scalingConfig: { minSize: 3, maxSize: 10, desiredSize: 3 },
      },
    ],
    podIdentityAssociations: [],
  };
}

/** The application repository with three tagged images. */
function healthyEcr(): Pick<AccountSnapshot, 'repositories'> {
  return {
    repositories: {
      [APP_REPO]: {
        repository: {
          repositoryName: APP_REPO,
          repositoryArn: arn('ecr', `repository/${APP_REPO}`),
          registryId: ACCOUNT,
          repositoryUri: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/${APP_REPO}`,
          createdAt: new Date('2025-06-01T10:00:00Z'),
          imageTagMutability: 'IMMUTABLE',
        },
        images: ['v2.3.0', 'v2.3.1', 'v2.2.9'].map((tag, i) => ({
          registryId: ACCOUNT,
          repositoryName: APP_REPO,
          imageDigest: `sha256:${String(i).repeat(64)}`,
          imageTags: [tag],
          imageSizeInBytes: 48_211_000 + i,
          imagePushedAt: new Date(`2026-11-0${i + 1}T10:00:00Z`),
          imageManifestMediaType: 'application/vnd.oci.image.manifest.v1+json',
        })),
      },
    },
  };
}

/** Private route table (S3 gateway endpoint, no NAT), ECR interface endpoints, the endpoint security group admitting 443 from the node. */
function healthyVpc(): Pick<AccountSnapshot, 'routeTables' | 'vpcEndpoints' | 'securityGroups'> {
  return {
    routeTables: [
      {
        RouteTableId: 'rtb-0private1a',
        VpcId: VPC,
        Associations: [
          {
            RouteTableAssociationId: 'rtbassoc-0a1b2c3d',
            RouteTableId: 'rtb-0private1a',
            SubnetId: SUBNET,
            Main: false,
          },
        ],
        Routes: [
          { DestinationCidrBlock: '10.0.0.0/16', GatewayId: 'local', State: 'active', Origin: 'CreateRouteTable' },
          {
            DestinationPrefixListId: 'pl-6da54004',
            GatewayId: 'vpce-0s3gateway0001',
            State: 'active',
            Origin: 'CreateRoute',
          },
        ],
      },
    ],
    vpcEndpoints: [
      interfaceEndpoint('vpce-0ecrapi000001', 'ecr.api'),
      interfaceEndpoint('vpce-0ecrdkr000001', 'ecr.dkr'),
      {
        VpcEndpointId: 'vpce-0s3gateway0001',
        VpcEndpointType: 'Gateway',
        VpcId: VPC,
        ServiceName: `com.amazonaws.${REGION}.s3`,
        State: 'Available',
        RouteTableIds: ['rtb-0private1a'],
        PolicyDocument: JSON.stringify({
          Version: '2008-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: '*',
              Action: 's3:GetObject',
              Resource: [`arn:aws:s3:::prod-${REGION}-starport-layer-bucket/*`],
            },
          ],
        }),
      },
    ],
    securityGroups: [
      {
        GroupId: ENDPOINT_SG,
        GroupName: 'ecr-endpoints',
        VpcId: VPC,
        OwnerId: ACCOUNT,
        Description: 'ECR interface endpoints',
        IpPermissions: [
          {
            IpProtocol: 'tcp',
            FromPort: 443,
            ToPort: 443,
            UserIdGroupPairs: [{ GroupId: NODE_SG, UserId: ACCOUNT }],
            IpRanges: [],
          },
        ],
      },
    ],
  };
}

/** The node subnet, the node's ENI with its secondary IPs, no CIDR reservations, the instance type's ENI limits. */
function healthyCapacity(): Pick<
  AccountSnapshot,
  'subnets' | 'networkInterfaces' | 'cidrReservations' | 'instanceTypes'
> {
  const nodeIps = ['10.0.12.34', ...Array.from({ length: 9 }, (_, i) => `10.0.12.${40 + i}`)];
  return {
    subnets: [
      {
        SubnetId: SUBNET,
        VpcId: VPC,
        CidrBlock: '10.0.12.0/24',
        AvailableIpAddressCount: 241,
        AvailabilityZone: 'eu-west-1a',
        State: 'available',
        MapPublicIpOnLaunch: false,
      },
    ],
    networkInterfaces: [
      {
        NetworkInterfaceId: 'eni-0123456789abcdef0',
        SubnetId: SUBNET,
        VpcId: VPC,
        Status: 'in-use',
        InterfaceType: 'interface',
        Attachment: { InstanceId: NODE_ID, DeviceIndex: 0, Status: 'attached' },
        PrivateIpAddress: nodeIps[0],
        PrivateIpAddresses: nodeIps.map((ip, i) => ({ PrivateIpAddress: ip, Primary: i === 0 })),
        Ipv4Prefixes: [],
        Groups: [{ GroupId: NODE_SG, GroupName: 'eks-cluster-sg-prod-eu-123456789' }],
      },
    ],
    cidrReservations: { [SUBNET]: [] },
    instanceTypes: [
      {
        InstanceType: 'm6i.large',
        NetworkInfo: {
          MaximumNetworkInterfaces: 3,
          Ipv4AddressesPerInterface: 10,
          Ipv6AddressesPerInterface: 10,
          NetworkPerformance: 'Up to 12.5 Gigabit',
        },
        ProcessorInfo: { SupportedArchitectures: ['x86_64'] },
      },
    ],
  };
}
