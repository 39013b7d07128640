import type { FailureClass } from './failure-classes.js';

/**
 * The signature catalogue: real error strings from kubelet, containerd, the VPC CNI (ipamd / aws-cni
 * plugin) and registries, mapped to failure classes. Order is priority: the first signature whose
 * patterns all match wins, so specific causes come before generic ones (a disk-full error during a
 * pull is disk-full, not a pull failure).
 *
 * Bump CATALOGUE_VERSION whenever a signature is added, removed or changes meaning: incidents record
 * the version that classified them.
 */
export const CATALOGUE_VERSION = '2026.11.1';

export interface Signature {
  /** Stable id, reported with each classification. */
  readonly id: string;
  readonly class: Exclude<FailureClass, 'unknown'>;
  /** One-line human cause. */
  readonly cause: string;
  /** Every pattern must match (an AND of context and cause). */
  readonly all: readonly RegExp[];
  /** None of these may match. */
  readonly none?: readonly RegExp[];
}

/** Lines that talk about pulling an image (kubelet, containerd, CRI). */
const PULL =
  /failed to pull|pulling from host|failed to resolve reference|failed to do request|PullImage|ErrImagePull|ImagePullBackOff|failed to copy|fetch(ing)? (manifest|blob)|Back-off pulling|failed to get sandbox image|pull access denied|error pulling image|rpc error: code = (Unknown|NotFound|Unavailable|DeadlineExceeded) desc = .*image/i;
/** Sandbox (pause) image, by the CRI message or the well-known pause references. */
const SANDBOX =
  /failed to get sandbox image|sandbox image "[^"]*"|localhost\/kubernetes\/pause|\/eks\/pause(?::|@|")|pause-windows/i;
/** The line reports a failure, not progress. */
const FAILURE =
  /fail|error|unable|cannot|denied|refused|timeout|timed out|unavailable|exceeded|not found|unknown|BackOff|no space/i;

export const SIGNATURES: readonly Signature[] = [
  {
    id: 'disk.no-space',
    class: 'disk-full',
    cause: 'the node filesystem is full (no space left on device)',
    all: [/no space left on device/i],
  },
  {
    id: 'windows.ipam-label',
    class: 'windows-ipam',
    cause:
      'Windows pod has no vpc.amazonaws.com/PrivateIPv4Address label: Windows IPAM is not enabled or the pod lacks the Windows nodeSelector',
    all: [/does not have label vpc\.amazonaws\.com\/PrivateIPv4Address/i],
  },
  {
    id: 'branch-eni.credentials',
    class: 'branch-eni',
    cause:
      'the VPC resource controller could not allocate a branch ENI (security groups for pods): control-plane credentials failure',
    all: [/failed to allocate branch ENI/i],
  },
  {
    id: 'cidr.insufficient-blocks',
    class: 'cidr-fragmentation',
    cause: 'no free aligned /28 block in the subnet for a prefix delegation (InsufficientCidrBlocks)',
    all: [/InsufficientCidrBlocks|does not have enough free cidr blocks/i],
  },
  {
    id: 'cni.unauthorized',
    class: 'cni-permissions',
    cause: 'the VPC CNI is not authorized to manage ENIs/IPs: AmazonEKS_CNI_Policy missing from the role aws-node uses',
    all: [
      /UnauthorizedOperation|MissingIAMPermissions|not authorized to perform: ec2:(?:AssignPrivateIpAddresses|CreateNetworkInterface|AttachNetworkInterface|DescribeNetworkInterfaces|AssignIpv6Addresses|CreateTags)/i,
    ],
    none: [/ecr:|ecr\.amazonaws/i],
  },
  {
    id: 'ipamd.unreachable',
    class: 'ipamd-unavailable',
    cause: 'the aws-cni plugin cannot reach ipamd (aws-node is not running or not ready on the node)',
    all: [
      /Error while dialing|error dialing|connection error|failed to connect|connect: (?:connection refused|no such file)/i,
      /127\.0\.0\.1:50051|ipamd\.sock|aws-node\/ipamd/i,
    ],
  },
  {
    id: 'cni.not-initialized',
    class: 'ipamd-unavailable',
    cause: 'the node network plugin is not ready (NetworkPluginNotReady: aws-node has not written its CNI config)',
    all: [/NetworkPluginNotReady|cni plugin not initialized|network plugin is not ready/i],
    // containerd logs this on every rename of the CNI config file; only kubelet's condition counts.
    none: [/failed to reload cni configuration/i],
  },
  {
    id: 'ip.subnet-exhausted',
    class: 'ip-exhaustion',
    cause: 'the subnet has no free IP addresses (InsufficientFreeAddressesInSubnet)',
    all: [/InsufficientFreeAddressesInSubnet/i],
  },
  {
    id: 'ip.eni-limit',
    class: 'ip-exhaustion',
    cause: 'the instance reached its ENI / IP-per-ENI limit (PrivateIpAddressLimitExceeded)',
    all: [/PrivateIpAddressLimitExceeded|AttachmentLimitExceeded|NetworkInterfaceLimitExceeded/i],
  },
  {
    id: 'ip.datastore-empty',
    class: 'ip-exhaustion',
    cause: 'ipamd has no free IP address or prefix for the pod (warm pool empty)',
    all: [
      /DataStore has no available IP|no available IP\/Prefix addresses|datastore: no available IP addresses|failed to assign an IP address to container/i,
    ],
  },
  {
    id: 'pid.fork-eagain',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: fork/exec failed with resource temporarily unavailable',
    all: [
      /resource temporarily unavailable/i,
      /fork\/exec|containerd-shim|runc|start shim|clone|new OS thread|pthread_create|fork/i,
    ],
  },
  {
    id: 'pid.thread-errno11',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: cannot create OS thread (errno=11)',
    all: [/failed to create new OS thread|pthread_create failed|errno=11\b/i],
  },
  {
    id: 'sandbox.auth',
    class: 'sandbox-image',
    cause: 'the sandbox (pause) image is gone and containerd cannot re-pull it without ECR credentials',
    all: [SANDBOX, /401 Unauthorized|no basic auth credentials|authorization failed|403 Forbidden|pull access denied/i],
  },
  {
    id: 'sandbox.not-found',
    class: 'sandbox-image',
    cause: 'the sandbox (pause) image was deleted from the node and cannot be pulled from anywhere',
    all: [
      SANDBOX,
      /not found|does not exist|manifest unknown|127\.0\.0\.1:443|localhost:443|no such host|connection refused/i,
      FAILURE,
    ],
  },
  {
    id: 'sandbox.other',
    class: 'sandbox-image',
    cause: 'containerd cannot get the sandbox (pause) image',
    all: [/failed to get sandbox image/i],
  },
  {
    id: 'image.platform',
    class: 'image-platform',
    cause: "the image has no variant for the node's OS/architecture",
    all: [/no match for platform in manifest|no matching manifest for/i],
  },
  {
    id: 'registry.rate-limit',
    class: 'rate-limited',
    cause: 'the registry rate-limited the pull (Docker Hub: toomanyrequests)',
    all: [/toomanyrequests|pull rate limit|429 Too Many Requests/i],
  },
  {
    id: 'registry.tls',
    class: 'registry-tls',
    cause: "the registry's TLS certificate is not trusted by the node (CA or TLS-intercepting proxy)",
    all: [PULL, /x509: |tls: failed to verify certificate|certificate signed by unknown authority/i],
  },
  {
    id: 'registry.auth',
    class: 'registry-auth',
    cause: 'the registry refused the pull credentials (node role ECR policy, repository policy or imagePullSecrets)',
    all: [
      PULL,
      /401 Unauthorized|403 Forbidden|no basic auth credentials|authorization failed|unauthorized: |denied: User: .* is not authorized|AccessDenied|not authorized to perform: ecr:/i,
    ],
  },
  {
    id: 'image.not-found',
    class: 'image-not-found',
    cause: 'the image name or tag does not exist in the registry',
    all: [
      PULL,
      /manifest unknown|manifest for \S+ not found|repository does not exist|name unknown|: not found|NotFound desc = failed to pull/i,
    ],
  },
  {
    id: 'registry.unreachable',
    class: 'registry-unreachable',
    cause: 'the node cannot reach the registry (timeout, refused connection or DNS)',
    all: [
      PULL,
      /i\/o timeout|Client\.Timeout exceeded|request canceled while waiting for connection|connection refused|no such host|network is unreachable|TLS handshake timeout|context deadline exceeded|connection reset by peer|no route to host/i,
    ],
  },
  {
    id: 'cni.add-failed',
    class: 'cni-failure',
    cause: 'the CNI plugin failed to set up the pod network',
    all: [
      /failed to set ?up (?:sandbox container .* )?network|failed to setup network for sandbox|plugin type="[^"]+"(?: name="[^"]+")? failed \(add\)|networkPlugin cni failed to set up pod/i,
    ],
  },
  {
    id: 'runtime.oci',
    class: 'runtime-failure',
    cause: 'the container runtime could not start the sandbox or container',
    all: [
      /OCI runtime (?:create|start) failed|failed to create (?:containerd )?(?:shim )?task|failed to start sandbox container|failed to create containerd container|failed to reserve sandbox name/i,
    ],
  },
  {
    id: 'image.pull-backoff',
    class: 'image-pull-failed',
    cause: 'kubelet could not pull the image (no cause in this line)',
    all: [/Back-off pulling image|ErrImagePull|ImagePullBackOff|Failed to pull image|failed to pull and unpack image/i],
  },
];

/**
 * A necessary condition of every signature: a line without any of these words cannot match one, so
 * the classifier skips the catalogue for it. Healthy logs are most of the stream; this keeps them cheap.
 * (A unit test holds every signature to it.)
 */
export const FAILURE_HINT =
  /fail|error|unable|cannot|timed out|backoff|unavailable|denied|refused|unauthori|no basic auth|insufficient|exceeded|not found|no available|no space|does not|not ready|notready|not initialized|errno|no match|toomanyrequests|rate limit|\b429\b|\b40[13]\b|x509|timeout|canceled|no such host|unreachable|deadline|reset by peer|no route|back-off|errimagepull|imagepullbackoff|missingiam|not authorized|unknown/i;

/** Lines that look alarming but report progress or success; never a failure of any class. */
export const INFORMATIONAL: readonly RegExp[] = [
  /^\s*Pulling (?:sandbox )?image\b/i,
  /Successfully pulled image/i,
  /\bPulled\b.*\bimage\b/i,
  /Container image "[^"]+" already present on machine/i,
  /msg="(?:PullImage|ImageCreate event|ImageUpdate event|Pulled image|RunPodSandbox for|StartContainer for|CreateContainer within sandbox)/,
];
