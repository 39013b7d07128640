import {
  ACCOUNT,
  APP_IMAGE,
  CLUSTER,
  detachEcrReadOnlyEvent,
  ENDPOINT_SG,
  fragmentSubnet,
  NODE_DNS,
  NODE_ROLE,
  NODE_SG,
  REGION,
  SUBNET,
} from '../local/account-snapshot.js';
import * as k8s from './cluster-seeds.js';
import * as E from './scenario-errors.js';
import {
  CNI_ROLE,
  ci,
  DOCKER_HUB_SECRET,
  degradedCniAddon,
  ECR_PAUSE,
  ipamd,
  kubelet,
  pull,
  type Scenario,
} from './scenario-kit.js';
import { PREVENT_SCENARIOS } from './scenarios-prevent.js';
import { PRIVATE_SCENARIOS as PRIVATE } from './scenarios-private.js';
import { SIGNAL_SCENARIOS } from './scenarios-signals.js';

export type { DemoNode, Scenario } from './scenario-kit.js';
export { CNI_ROLE, DEMO_CONFIG, DOCKER_HUB_SECRET } from './scenario-kit.js';

/**
 * Demo scenarios (names are a contract, issue #7): the events a real cluster emits for each field
 * failure, the recorded account it happens in, and the node (types and line builders in
 * scenario-kit.ts). Log lines are real field strings (see test/fixtures/corpus.jsonl for sources);
 * CloudTrail events are in test/fixtures/events.
 */
const FIELD_SCENARIOS: readonly Scenario[] = [
  {
    name: 'pause-image-deleted-al2023',
    title: 'AL2023 node: the baked pause image was removed; every new pod sits in ContainerCreating',
    lines: [kubelet(E.AL2023_PAUSE_MISSING)],
    repeat: 400,
    cluster: k8s.sandboxCluster(E.STUCK_WEB, E.AL2023_PAUSE_MISSING),
    node: { kind: 'local', variant: 'al2023' },
    expect: {
      class: 'sandbox-image',
      failing: ['node.sandbox-image.present', 'node.sandbox-image.pinned'],
      outcome: 'repaired and verified',
      nodeAction: 'repair-pause-image',
    },
  },
  {
    name: 'pause-image-gc-401',
    title: 'AL2 node: image GC removed the ECR pause image; containerd re-pulls it without credentials (401)',
    lines: [kubelet(k8s.PAUSE_GC_401_ERROR(ECR_PAUSE))],
    repeat: 250,
    cluster: k8s.sandboxCluster(E.STUCK_WEB, k8s.PAUSE_GC_401_ERROR(ECR_PAUSE)),
    node: { kind: 'local', variant: 'al2' },
    expect: {
      class: 'sandbox-image',
      failing: ['node.sandbox-image.present', 'node.sandbox-image.pinned'],
      outcome: 'repaired and verified',
      nodeAction: 'repair-pause-image',
    },
  },
  {
    name: 'pause-401-missing-ecr-policy',
    title:
      'Pause image 401 after AmazonEC2ContainerRegistryReadOnly was detached from the node role: the detach is reverted (approved by the demo), then the pause image repaired',
    lines: [kubelet(E.PAUSE_NO_CREDENTIALS)],
    repeat: 90,
    cloudTrail: ['detach-ecr-readonly.json'],
    account: (a) => {
      a.roles[NODE_ROLE].attached = a.roles[NODE_ROLE].attached.filter((p) => !p.includes('ContainerRegistry'));
      a.cloudTrailEvents.push(detachEcrReadOnlyEvent());
    },
    // The node's ECR token follows the recorded account's IAM: no token until the policy is back.
    cluster: k8s.sandboxCluster(E.STUCK_WEB, E.PAUSE_NO_CREDENTIALS),
    node: { kind: 'local', variant: 'al2' },
    approval: 'approve',
    expect: {
      class: 'sandbox-image',
      failing: ['iam.node-role.ecr-read', 'node.sandbox-image.present'],
      outcome: 'attach-managed-policy verified; repaired and verified',
      nodeAction: 'repair-pause-image',
      remedy: 'attach-managed-policy',
    },
  },
  {
    name: 'pid-exhaustion',
    title: 'Node out of PIDs: the shim cannot fork (logs collected, then the approved runtime restart, verified)',
    lines: [
      ci('runtime: failed to create new OS thread (have 2 already; errno=11)'),
      kubelet(E.SHIM_FORK, 'batch/worker-5'),
    ],
    repeat: 120,
    cluster: k8s.sandboxCluster(['batch/worker-5'], E.SHIM_FORK),
    node: {
      kind: 'simulated',
      probe: [
        {
          id: 'node.pids',
          status: 'fail',
          summary: "PID/thread use at 98% of the limit: new processes fail with 'resource temporarily unavailable'",
        },
        { id: 'node.zombies', status: 'warn', summary: '31240 zombie processes' },
      ],
    },
    approval: 'approve',
    expect: {
      class: 'pid-exhaustion',
      failing: ['node.pids'],
      outcome: 'collect-logs done; restart-runtime: repaired and verified',
      nodeAction: ['collect-logs', 'restart-runtime'],
    },
  },
  {
    name: 'subnet-ip-exhaustion',
    title: 'The node subnet ran out of addresses',
    lines: [
      ipamd(
        `Failed to increase pool size due to not able to allocate ENI AllocENI: error attaching ENI: allocate ENI: failed to create ENI: InsufficientFreeAddressesInSubnet: The specified subnet ${SUBNET} does not have enough free addresses to satisfy the request.`,
      ),
    ],
    repeat: 60,
    account: (a) => {
      a.subnets[0].AvailableIpAddressCount = 2;
    },
    cluster: k8s.sandboxCluster(E.STUCK_WEB, k8s.NO_IP_ERROR),
    node: { kind: 'simulated', probe: [] },
    expect: { class: 'ip-exhaustion', failing: ['subnet.free-ips'], outcome: 'diagnosed; action recommended' },
  },
  {
    name: 'insufficient-cidr-blocks',
    title:
      'Prefix delegation: free IPs but fragmented; the one aligned /28 left is reserved for prefixes (approved by the demo)',
    lines: [
      ipamd(
        `Failed to increase pool size due to not able to allocate ENI AllocENI: error attaching ENI: allocate ENI: failed to create ENI: InsufficientCidrBlocks: The specified subnet ${SUBNET} does not have enough free cidr blocks to satisfy the request. status code: 400`,
      ),
    ],
    cloudTrail: ['assign-prefix-insufficient-cidr.json'],
    repeat: 60,
    // One address in every /28 but one: the failure happened while the last aligned block was taken too.
    account: (a) => fragmentSubnet(a, 212, 1),
    cluster: k8s.sandboxCluster(E.STUCK_WEB, k8s.NO_IP_ERROR),
    node: { kind: 'simulated', probe: [] },
    modes: { 'cidr-fragmentation': 'approve' },
    approval: 'approve',
    expect: {
      class: 'cidr-fragmentation',
      failing: [],
      outcome: `remedied and verified: create a prefix-type CIDR reservation over the free aligned space of ${SUBNET}`,
      remedy: 'create-cidr-reservation',
    },
  },
  {
    name: 'ipamd-unreachable',
    title:
      'aws-node not running: the CNI plugin cannot dial ipamd; aws-node is restarted on the node (approved by the demo)',
    lines: [kubelet(k8s.IPAMD_SOCKET_ERROR)],
    repeat: 80,
    account: degradedCniAddon,
    node: { kind: 'simulated', probe: [] },
    cluster: k8s.IPAMD_CLUSTER,
    modes: { 'ipamd-unavailable': 'approve' },
    approval: 'approve',
    expect: {
      class: 'ipamd-unavailable',
      failing: ['eks.addon-versions'],
      outcome: 'restart-aws-node verified; collect-logs done',
      remedy: 'restart-aws-node',
      nodeAction: 'collect-logs',
    },
  },
  {
    name: 'cni-policy-missing',
    title:
      'The managed vpc-cni add-on points aws-node at a role without AmazonEKS_CNI_Policy: attached, then aws-node restarted (approved by the demo)',
    lines: [
      ipamd(
        "Initialization failure: ipamd: can not initialize with AWS SDK interface: refreshSGIDs: unable to update the ENI's SG: UnauthorizedOperation: You are not authorized to perform this operation. status code: 403",
      ),
    ],
    repeat: 40,
    account: (a) => {
      a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
      a.roles[CNI_ROLE] = { attached: [], inline: {} };
    },
    node: { kind: 'simulated', probe: [] },
    cluster: k8s.CNI_POLICY_CLUSTER,
    modes: { 'cni-permissions': 'approve' },
    approval: 'approve',
    expect: {
      class: 'cni-permissions',
      failing: ['iam.cni-policy'],
      outcome: `remedied and verified: attach arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy to role ${CNI_ROLE}; then restart aws-node on node ${NODE_DNS} (delete the pod of DaemonSet kube-system/aws-node there)`,
      remedy: ['attach-managed-policy', 'restart-aws-node'],
    },
  },
  {
    name: 'cni-policy-blocked-by-boundary',
    title:
      'As cni-policy-missing, but a permissions boundary on the aws-node role denies the ENI calls: the attach fails verification and is rolled back',
    lines: [
      ipamd(
        "Initialization failure: ipamd: can not initialize with AWS SDK interface: refreshSGIDs: unable to update the ENI's SG: UnauthorizedOperation: You are not authorized to perform this operation. status code: 403",
      ),
    ],
    repeat: 40,
    account: (a) => {
      a.addons[0].serviceAccountRoleArn = `arn:aws:iam::${ACCOUNT}:role/${CNI_ROLE}`;
      a.managedPolicies[`arn:aws:iam::${ACCOUNT}:policy/EksWorkloadBoundary`] = {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: ['ec2:Describe*', 'eks:DescribeCluster'], Resource: '*' }],
      };
      a.roles[CNI_ROLE] = {
        attached: [],
        inline: {},
        permissionsBoundary: `arn:aws:iam::${ACCOUNT}:policy/EksWorkloadBoundary`,
      };
    },
    cluster: k8s.CNI_POLICY_CLUSTER,
    node: { kind: 'simulated', probe: [] },
    modes: { 'cni-permissions': 'approve' },
    approval: 'approve',
    expect: {
      class: 'cni-permissions',
      failing: ['iam.cni-policy'],
      outcome: `attach-managed-policy rolled-back: verification failed (IAM still denies ec2:AssignPrivateIpAddresses (implicitDeny), ec2:AttachNetworkInterface (implicitDeny), ec2:CreateNetworkInterface (implicitDeny), ec2:DeleteNetworkInterface (implicitDeny), ec2:DetachNetworkInterface (implicitDeny), ec2:ModifyNetworkInterfaceAttribute (implicitDeny), ec2:UnassignPrivateIpAddresses (implicitDeny) to ${CNI_ROLE}); the change was rolled back`,
      remedy: 'attach-managed-policy',
    },
  },
  {
    name: 'windows-ipam-label',
    title:
      'Windows pod without the PrivateIPv4Address label: enable-windows-ipam is set in the VPC CNI ConfigMap (approved by the demo)',
    lines: [kubelet(k8s.WINDOWS_IPAM_ERROR, 'default/iis-5d8c7b6f4-k2l9m')],
    repeat: 20,
    node: { kind: 'simulated', probe: [] },
    cluster: k8s.WINDOWS_IPAM_CLUSTER,
    modes: { 'windows-ipam': 'approve' },
    approval: 'approve',
    expect: {
      class: 'windows-ipam',
      failing: [],
      outcome: 'remedied and verified: set enable-windows-ipam: "true" in ConfigMap kube-system/amazon-vpc-cni',
      remedy: 'enable-windows-ipam',
    },
  },
  {
    name: 'branch-eni-credentials',
    title: 'Security groups for pods: the VPC resource controller cannot create branch ENIs',
    lines: [
      ci(
        'Vpc-resource-controller failed to allocate branch ENI to pod: creating network interface, NoCredentialProviders: no valid providers in chain. Deprecated.',
      ),
    ],
    repeat: 15,
    cluster: k8s.sandboxCluster(E.STUCK_WEB, k8s.NO_IP_ERROR),
    node: { kind: 'simulated', probe: [] },
    expect: { class: 'branch-eni', failing: [], outcome: 'diagnosed; action recommended' },
  },
  {
    name: 'image-tag-typo',
    title: 'Deployment points at a tag that does not exist',
    lines: [pull(E.TAG_TYPO, `failed to resolve reference "${E.TAG_TYPO}": ${E.TAG_TYPO}: not found`)],
    repeat: 40,
    cluster: k8s.pullCluster(E.STUCK_API, E.TAG_TYPO, E.notFound(E.TAG_TYPO)),
    node: { kind: 'simulated', probe: [] },
    expect: { class: 'image-not-found', failing: ['ecr.image-exists'], outcome: 'diagnosed; action recommended' },
  },
  {
    name: 'image-repo-typo',
    title: 'Deployment points at a repository that does not exist',
    lines: [pull(E.REPO_TYPO, `failed to resolve reference "${E.REPO_TYPO}": ${E.REPO_TYPO}: not found`)],
    repeat: 40,
    cluster: k8s.pullCluster(E.STUCK_API, E.REPO_TYPO, E.notFound(E.REPO_TYPO)),
    node: { kind: 'simulated', probe: [] },
    expect: { class: 'image-not-found', failing: ['ecr.image-exists'], outcome: 'diagnosed; action recommended' },
  },
  {
    name: 'private-ecr-cross-account-denied',
    title: 'Image in another account whose repository policy does not grant this node role',
    lines: [
      pull(
        `444455556666.dkr.ecr.${REGION}.amazonaws.com/shared/base:2024`,
        `failed to resolve reference "444455556666.dkr.ecr.${REGION}.amazonaws.com/shared/base:2024": unexpected status from HEAD request to https://444455556666.dkr.ecr.${REGION}.amazonaws.com/v2/shared/base/manifests/2024: 403 Forbidden`,
      ),
    ],
    cloudTrail: ['ecr-batchgetimage-denied.json'],
    repeat: 30,
    account: (a) => {
      a.repositories['shared/base'] = {
        repository: {
          repositoryName: 'shared/base',
          registryId: '444455556666',
          repositoryArn: `arn:aws:ecr:${REGION}:444455556666:repository/shared/base`,
        },
        // The owner lets this account read the repository (its IAM then decides who: pod-doctor's
        // check role may), but grants pulls to no role of it.
        policyText: JSON.stringify({
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'PodDoctorChecks',
              Effect: 'Allow',
              Principal: { AWS: `arn:aws:iam::${a.accountId}:root` },
              Action: ['ecr:DescribeImages', 'ecr:GetRepositoryPolicy'],
            },
          ],
        }),
        images: [
          {
            registryId: '444455556666',
            repositoryName: 'shared/base',
            imageDigest: `sha256:${'7'.repeat(64)}`,
            imageTags: ['2024'],
          },
        ],
      };
    },
    cluster: k8s.pullCluster(E.STUCK_API, E.CROSS_ACCOUNT, E.CROSS_ACCOUNT_DENIED),
    node: { kind: 'simulated', probe: [] },
    expect: { class: 'registry-auth', failing: ['ecr.repository-policy'], outcome: 'diagnosed; action recommended' },
  },
  {
    name: 'ecr-endpoint-sg-blocks-443',
    title: 'The ECR interface endpoint security group no longer admits 443 from the nodes',
    lines: [
      pull(
        APP_IMAGE,
        `failed to resolve reference "${APP_IMAGE}": failed to do request: Head "https://${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/v2/payments/api/manifests/v2.3.1": dial tcp 10.0.3.17:443: i/o timeout`,
      ),
    ],
    cloudTrail: ['revoke-endpoint-sg-443.json'],
    repeat: 50,
    account: (a) => {
      for (const g of a.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
    },
    cluster: k8s.pullCluster(E.STUCK_API, APP_IMAGE, E.ENDPOINT_TIMEOUT),
    node: {
      kind: 'simulated',
      probe: [
        {
          id: 'node.registry-reachable',
          status: 'fail',
          summary: `no TCP connection to api.ecr.${REGION}.amazonaws.com:443 ${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com:443`,
        },
      ],
    },
    modes: { 'registry-unreachable': 'approve' },
    approval: 'approve',
    expect: {
      class: 'registry-unreachable',
      failing: ['vpc.endpoint.sg-443', 'node.registry-reachable'],
      outcome: `remedied and verified: allow TCP 443 from ${NODE_SG} on ${ENDPOINT_SG} (endpoint security group of vpce-0ecrapi000001, vpce-0ecrdkr000001)`,
      remedy: 'add-sg-rule',
    },
  },
  {
    name: 'docker-hub-rate-limit',
    title: 'Docker Hub anonymous pull limit reached',
    lines: [
      ci(
        'Failed to pull image "httpd:latest": rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/httpd:latest": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/httpd/manifests/latest: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit.',
      ),
    ],
    repeat: 30,
    // The deployment configures the Docker Hub credentials secret; its login works.
    account: (a) => {
      a.secrets = { [DOCKER_HUB_SECRET]: { loginValid: true } };
    },
    cluster: k8s.pullCluster(E.STUCK_WEB, 'httpd:latest', E.DOCKER_HUB_429),
    node: { kind: 'simulated', probe: [] },
    modes: { 'rate-limited': 'approve' },
    approval: 'approve',
    expect: {
      class: 'rate-limited',
      failing: [],
      outcome: `remedied and verified: create an ECR pull-through cache rule docker-hub → registry-1.docker.io (credentials ${DOCKER_HUB_SECRET}); left by hand: the node role may not pull through the cache yet (see the next step)`,
      remedy: 'create-pull-through-cache',
    },
  },
];

export const DEMO_CLUSTER = CLUSTER;

/** Every demo scenario: the log-line field scenarios, then those of the other signals. */
export const SCENARIOS: readonly Scenario[] = [FIELD_SCENARIOS, SIGNAL_SCENARIOS, PREVENT_SCENARIOS, PRIVATE].flat();
