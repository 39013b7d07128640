import type { FailureClass } from './failure-classes.js';
import {
  API_SERVER,
  AUTH,
  FAILURE,
  NOT_FOUND,
  PULL,
  poolFull,
  REGISTRY,
  SANDBOX,
  standaloneRefusal,
  UNREACHABLE,
} from './signature-parts.js';

/**
 * The signature catalogue: causes named in kubelet, containerd, dockerd, the VPC CNI (ipamd / aws-cni
 * plugin), credential providers and registries, mapped to failure classes. Signatures match a CAUSE in
 * a CONTEXT (any 401 against any registry while pulling is registry-auth), not one sentence.
 *
 * Order is priority: the first signature whose patterns all match wins, so specific causes come before
 * generic ones (a full disk during a pull is disk-full; any failure of the node's pause image is
 * sandbox-image before it is a registry failure).
 *
 * Linear time by construction: every pattern here is QUANTIFIER-FREE (literal alternatives, character
 * classes, anchors, word boundaries; no `*`, `+`, `?` or `{}` repetition), so one match attempt costs
 * at most the pattern's length and a scan is O(line × pattern). A unit test holds every pattern to it.
 *
 * Each signature names its CloudWatch Logs filter terms (case-sensitive literals; a line the signature
 * matches contains at least one of them): the subscription filter is built from them (filter.ts).
 *
 * Bump CATALOGUE_VERSION whenever a signature is added, removed or changes meaning: incidents record
 * the version that classified them.
 */
export const CATALOGUE_VERSION = '2026.11.5';

export interface Signature {
  /** Stable id, reported with each classification. */
  readonly id: string;
  readonly class: Exclude<FailureClass, 'unknown'>;
  /** One-line human cause. */
  readonly cause: string;
  /** Every pattern must match (an AND of context and cause). Quantifier-free. */
  readonly all: readonly RegExp[];
  /** None of these may match. Quantifier-free. */
  readonly none?: readonly RegExp[];
  /**
   * A further condition no quantifier-free pattern can state (comparing two numbers in the line).
   * Must run in linear time.
   * @default no further condition
   */
  readonly when?: (message: string) => boolean;
  /** CloudWatch Logs filter terms: case-sensitive literals, no double quotes; any one suffices. */
  readonly filter: readonly string[];
}

export { poolFull, standaloneRefusal } from './signature-parts.js';

export const SIGNATURES: readonly Signature[] = [
  {
    id: 'disk.no-space',
    class: 'disk-full',
    cause: 'the node filesystem is full (no space left on device)',
    all: [
      /no space left on device|disk quota exceeded|garbage collect required amount|FreeDiskSpaceFailed|ImageGCFailed/i,
    ],
    filter: ['no space', 'xceeded', 'ailed'],
  },
  {
    id: 'disk.eviction',
    class: 'disk-full',
    cause: 'kubelet is evicting pods to reclaim node disk (ephemeral storage, nodefs or imagefs below threshold)',
    all: [/ephemeral-storage|nodefs|imagefs/i, /reclaim|evict|low on resource/i],
    filter: ['ephemeral', 'nodefs', 'imagefs'],
  },
  {
    id: 'windows.ipam-label',
    class: 'windows-ipam',
    cause:
      'Windows pod has no vpc.amazonaws.com/PrivateIPv4Address label: Windows IPAM is not enabled or the pod lacks the Windows nodeSelector',
    all: [
      /vpc\.amazonaws\.com\/PrivateIPv4Address|assign private ipv4 addresses on attached network interface/i,
      /does not have label|Waiting for pod label|missing|fail|error|Unable/i,
    ],
    filter: ['PrivateIPv4', 'private ipv4'],
  },
  {
    id: 'branch-eni.failed',
    class: 'branch-eni',
    cause:
      'the VPC resource controller could not allocate or annotate a branch ENI (security groups for pods): control-plane side',
    all: [
      /branch ENI|BranchENI|branch-eni|trunk ENI|TrunkENI|trunk interface|vpc\.amazonaws\.com\/pod-eni/i,
      /fail|error|Insufficient|no instance type satisfied|could not schedule/i,
    ],
    filter: ['ENI', 'ailed', 'pod-eni'],
  },
  {
    id: 'cidr.insufficient-blocks',
    class: 'cidr-fragmentation',
    cause: 'no free aligned /28 block in the subnet for a prefix delegation (InsufficientCidrBlocks)',
    all: [/InsufficientCidr|does not have enough free cidr blocks/i],
    filter: ['sufficient', 'cidr blocks'],
  },
  {
    id: 'cni.unauthorized',
    class: 'cni-permissions',
    cause: 'the VPC CNI is not authorized to manage ENIs/IPs: AmazonEKS_CNI_Policy missing from the role aws-node uses',
    all: [
      /UnauthorizedOperation|MissingIAMPermissions|not authorized to perform: ec2:|AuthFailure: You are not the owner|Unauthorized operation: failed to call|due to missing permissions/i,
    ],
    none: [/ecr:|ecr\.amazonaws/i],
    filter: ['uthori', 'MissingIAM', 'AuthFailure'],
  },
  {
    id: 'cni.credentials',
    class: 'cni-permissions',
    cause:
      'the VPC CNI has no usable AWS credentials (IRSA / Pod Identity role, OIDC provider or node role) to manage ENIs',
    all: [
      /WebIdentityErr|AssumeRoleWithWebIdentity|InvalidIdentityToken|NoCredentialProviders|EC2RoleRequestError|failed to refresh cached credentials|no EC2 IMDS role found|InvalidClientTokenId|ExpiredToken|SignatureDoesNotMatch|security token included in the request is invalid|169\.254\.170\.23/i,
      /ipamd|aws-node|aws-k8s-agent|amazon-vpc-cni|aws-cni|ec2:|NetworkInterface|DescribeInstances|AssignPrivateIp|\bENI/i,
    ],
    none: [/ecr:|ecr\.amazonaws|branch ENI|vpc-resource-controller/i],
    filter: ['redential', 'ailed', 'uthori', 'rror'],
  },
  {
    id: 'ip.subnet-exhausted',
    class: 'ip-exhaustion',
    cause: 'the subnet has no free IP addresses (InsufficientFreeAddressesInSubnet)',
    all: [
      /InsufficientFreeAddressesInSubnet|does not have enough free addresses|not enough free addresses|not have enough available IP addresses|doesn't seem to have enough IPs/i,
    ],
    filter: ['sufficient', 'available IP'],
  },
  {
    id: 'ip.eni-limit',
    class: 'ip-exhaustion',
    cause: 'the instance reached its ENI / IP-per-ENI limit',
    all: [
      /PrivateIpAddressLimitExceeded|AttachmentLimitExceeded|NetworkInterfaceLimitExceeded|private addresses will exceed limit|max ENI already attached|out of ENIs|maximum number of ENIs|ENI limit|eni attachment limit/i,
    ],
    none: [/less than the maximum/i],
    filter: ['xceeded', 'exceed limit', 'ENI'],
  },
  {
    id: 'ip.datastore-empty',
    class: 'ip-exhaustion',
    cause: 'ipamd has no free IP address or prefix for the pod (warm pool empty)',
    all: [
      /no available IP|no available IPs|failed to assign an IP address|failed to assign an IPv4 address|failed to assign an IPv6 address|AssignPodIPv4Address: no|assignPodIPAddress: no|no free IP available in the|IP address pool is exhausted|ran out of IP|unable to allocate IP|range is full|no IP addresses available|does not have available addresses|Insufficient IP Addresses|no IPs available|no more IPs|no more free IP|IP addresses available: 0/i,
    ],
    // Walking the prefixes, ipamd logs one "no free IP in the prefix" per full prefix and moves on.
    none: [/Get free IP from prefix failed/i],
    filter: ['available IP', 'ailed', 'PodIP', 'free IP', 'xhausted', 'out of IP', 'address pool', 'sufficient'],
  },
  {
    id: 'ip.pool-full',
    class: 'ip-exhaustion',
    cause: 'ipamd is asked for a pod IP while every IP in its pool is assigned (pool stats: assigned = total)',
    all: [/AssignPodIPv4Address: IP address pool stats|AssignIPv4Address: IP address pool stats/i],
    when: poolFull,
    filter: ['address pool'],
  },
  {
    id: 'ipamd.unreachable',
    class: 'ipamd-unavailable',
    cause: 'the aws-cni plugin cannot reach ipamd (aws-node is not running or not ready on the node)',
    all: [
      /:50051|ipamd\.sock|aws-node\/ipamd|AddNetwork gRPC call|AddNetwork grpc call/i,
      /Error while dialing|error dialing|connection error|failed to connect|connect: connection refused|connect: no such file|timeout/i,
    ],
    filter: ['50051', 'ipamd', 'rror'],
  },
  {
    id: 'cni.not-initialized',
    class: 'ipamd-unavailable',
    cause: 'the node network plugin is not ready (NetworkPluginNotReady: aws-node has not written its CNI config)',
    all: [
      /NetworkPluginNotReady|cni plugin not initialized|network plugin is not ready|cni config uninitialized|No networks found in \/etc\/cni\/net\.d|NetworkReady=false/i,
    ],
    // containerd logs this on every rename of the CNI config file; only kubelet's condition counts.
    none: [/failed to reload cni configuration/i],
    filter: ['NotReady', 'initialized', 'ot ready', 'NetworkReady', 'No networks'],
  },
  {
    id: 'ipamd.startup',
    class: 'ipamd-unavailable',
    cause: 'ipamd (aws-node) did not start or cannot reach the API server, so the node hands out no pod IPs',
    all: [
      /Unable to reach API Server|Initialization failure: ipamd|ipamd init|waiting for IPAM-D|IPAM daemon|IPAM connectivity|Failed to communicate with K8S Server|error communicating with apiserver|ipamd init: failed|ipamd is not running|aws-node is not ready/i,
      /retrying|fail|timed out|timeout|error|not running|not ready/i,
    ],
    filter: ['IPAM', 'ipamd', 'ailed', 'rror', 'aws-node'],
  },
  {
    id: 'pid.fork-eagain',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: fork/exec failed with resource temporarily unavailable',
    all: [
      /resource temporarily unavailable|EAGAIN/i,
      /fork\/exec|containerd-shim|runc|start shim|clone|thread|pthread_create|fork|exec|spawn|Cannot run program/i,
    ],
    filter: ['navailable', 'rror', 'ailed'],
  },
  {
    id: 'pid.thread-errno11',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: cannot create a process or OS thread (EAGAIN)',
    all: [
      /failed to create new OS thread|pthread_create failed|errno=11\b|errno 11\b|error=11,|max user processes|InsufficientPID|insufficient PID|reclaim pids|cannot allocate memory: fork|Cannot fork|fork rejected by pids controller|create new native thread|create native thread|can't start new thread|Failed to create thread|Cannot create GC thread|Cannot create worker GC thread|pids limit reached|pids cgroup limit/i,
    ],
    filter: ['ailed', 'errno', 'user processes', 'sufficient', 'pids', 'fork', 'rror'],
  },
  {
    id: 'sandbox.image',
    class: 'sandbox-image',
    cause: "the node's sandbox (pause) image is missing or cannot be pulled (credentials, network or deleted image)",
    all: [SANDBOX, FAILURE],
    // kubelet's "No sandbox for pod can be found" and progress of the pull script are not failures.
    none: [/Successfully pulled|already present on machine|Starting pull sandbox image/i],
    filter: ['andbox image', 'andbox-image', 'pause'],
  },
  {
    id: 'image.platform',
    class: 'image-platform',
    cause: "the image has no variant for the node's OS/architecture",
    all: [
      /no match for platform|no match for current platform|no matching manifest for|could not find platform|does not match the specified platform|exec format error|image operating system|cannot be used on this platform|does not match the host operating system|does not match the detected host platform|does not match the operating system of the host|no image found in manifest list for architecture|no image found in image index for architecture/i,
    ],
    filter: ['latform', 'matching manifest', 'rror', 'operating system'],
  },
  {
    id: 'cni.add-failed',
    class: 'cni-failure',
    cause: 'the CNI plugin failed to set up the pod network',
    all: [
      /failed to set up sandbox container|failed to find plugin|failed to set bridge addr|failed to call cni|Error adding network|HNSEndpoint|hnsCall failed|hcn endpoint|hcnOpenNamespace|of network plugin|failed to setup network for sandbox|failed to set up network for sandbox|failed \(add\)|networkPlugin cni failed|NetworkPlugin cni failed|failed to set up pod network|failed to setup network|add cmd: |plugin type=|netplugin failed/i,
      /fail|error/i,
    ],
    filter: ['ailed', 'rror', 'HNS', 'hcn', 'network plugin', 'add cmd', 'plugin type'],
  },
  {
    id: 'runtime.oci',
    class: 'runtime-failure',
    cause: 'the container runtime could not start the sandbox or container',
    all: [
      /OCI runtime|runc create failed|runc run failed|unable to start container process|starting container process caused|container init caused|error during container init|applying cgroup configuration|setting cgroup config|failed to create shim|failed to create containerd task|failed to start containerd task|failed to create task|failed to start sandbox container|failed to create containerd container|failed to reserve sandbox name|failed to start shim|ttrpc: closed|binary not installed|Container creation error|container create failed|init pipe|init-p: |failed to start sandbox|failed to get sandbox runtime|no runtime for|failed to find runtime handler|failed to create sandbox root|failed to create network namespace for sandbox|failed to setup sandbox files|failed to generate sandbox container spec|failed to create container io|failed to get sandbox container task|failed to wait for sandbox container task|failed to load shim|failed to resolve runtime path|runc console socket|error creating overlay mount|failed to mount rootfs|is already in use by container|failed to create a sandbox for pod/i,
    ],
    // A runtime that pulls the image itself (confidential containers) wraps a registry refusal in its
    // shim error: the cause is the registry's answer, not the runtime.
    none: [/authentication required|401 Unauthorized|403 Forbidden|pull access denied|no basic auth credentials/i],
    filter: ['OCI runtime', 'ailed', 'rror', 'no such', 'EOF'],
  },
  {
    id: 'runtime.unreachable',
    class: 'runtime-failure',
    cause: 'the container runtime (containerd / dockerd / CRI socket) is not answering on the node',
    all: [
      /containerd\.sock|dockershim\.sock|cri-dockerd\.sock|crio\.sock|docker\.sock|\/run\/containerd\/s\//i,
      /connection refused|no such file or directory|Error while dialing|connection error|transport is closing|deadline exceeded|i\/o timeout/i,
    ],
    filter: ['refused', 'no such', 'rror', 'xceeded', 'imeout'],
  },
  {
    id: 'registry.rate-limit',
    class: 'rate-limited',
    cause: 'the registry or kubelet throttled the pull (Docker Hub toomanyrequests, 429, pull QPS)',
    all: [
      /toomanyrequests|pull rate limit|Too Many Requests|pull QPS exceeded|rate limit exceeded|ThrottlingException/i,
    ],
    filter: ['toomanyrequests', 'ate limit', '429', 'QPS'],
  },
  {
    id: 'registry.credential-network',
    class: 'registry-unreachable',
    cause: 'the node cannot reach the registry credential endpoint (ECR API) to get a pull token',
    all: [
      /request send failed|dial tcp|no such host|i\/o timeout|connection refused|network is unreachable/i,
      /authorization token|GetAuthorizationToken|retrieving credentials|credential provider|anonymous token|oauth token/i,
    ],
    // No role from the instance metadata service is a credentials problem, not a network one.
    none: [/IMDS|169\.254\.169\.254|security-credentials/i],
    filter: ['ailed', 'dial tcp', 'no such', 'imeout', 'refused', 'unreachable'],
  },
  {
    id: 'registry.auth',
    class: 'registry-auth',
    cause: 'the registry refused the pull credentials (node role ECR policy, repository policy or imagePullSecrets)',
    all: [
      AUTH,
      /pull access denied|not authorized to perform: ecr:|GetAuthorizationToken|credential|docker login|CannotPullECRContainerError|registry|docker|daemon|image|pull|ecr|manifest|\/v2\/|token/i,
    ],
    filter: ['401', '403', 'uthori', 'orbidden', 'redential', 'uthenticat', 'enied', 'login', 'token', 'IMDS'],
    when: standaloneRefusal,
  },
  {
    id: 'registry.tls',
    class: 'registry-tls',
    cause: "the registry's TLS certificate is not trusted by the node (CA or TLS-intercepting proxy)",
    all: [
      /x509: |tls: failed to verify certificate|certificate signed by unknown authority|remote error: tls:|tls: bad certificate|certificate is not valid|certificate has expired|server gave HTTP response to HTTPS client/i,
      /pull|image|registry|docker|\/v2\/|\/v1\/|manifest|blob|PullImage|resolve reference/i,
    ],
    filter: ['x509', 'tls:', 'ertificate'],
  },
  {
    id: 'registry.unreachable',
    class: 'registry-unreachable',
    cause: 'the node cannot reach the registry (timeout, reset, refused connection or DNS)',
    all: [UNREACHABLE, PULL],
    none: [API_SERVER],
    filter: [
      'imeout',
      'canceled',
      'refused',
      'no such',
      'unreachable',
      'xceeded',
      'reset',
      'no route',
      'EOF',
      'misbehaving',
      'dial tcp',
      'timed out',
      'rror',
      'navailable',
      'Bad Gateway',
      'ailed',
    ],
  },
  {
    id: 'registry.unreachable-lookup',
    class: 'registry-unreachable',
    cause: 'the node cannot resolve or reach the registry host',
    all: [UNREACHABLE, REGISTRY, /\bGet https|\bHead https|\bPost https|\bGet "https|\bHead "https|lookup /i],
    none: [API_SERVER],
    filter: [
      'imeout',
      'canceled',
      'refused',
      'no such',
      'unreachable',
      'xceeded',
      'reset',
      'no route',
      'EOF',
      'misbehaving',
      'dial tcp',
      'timed out',
      'rror',
      'navailable',
      'Bad Gateway',
      'ailed',
    ],
  },
  {
    id: 'runtime.sandbox-timeout',
    class: 'runtime-failure',
    cause: 'the container runtime did not create the pod sandbox in time (CRI deadline exceeded)',
    all: [/create pod sandbox|RunPodSandbox/i, /DeadlineExceeded|context deadline exceeded/i],
    filter: ['xceeded'],
  },
  {
    id: 'image.not-found',
    class: 'image-not-found',
    cause: 'the image name or tag does not exist in the registry',
    all: [NOT_FOUND, /pull|image|registry|manifest|repository|docker|\/v2\//i],
    none: [
      /Handler for POST|No sandbox for pod can be found|container not found|pod not found|ContainerStatus|ExecSync/i,
    ],
    filter: ['unknown', 'not exist', 'ot found', 'no such', 'NotFound'],
  },
  {
    id: 'image.pull-backoff',
    class: 'image-pull-failed',
    cause: 'the image could not be pulled (no cause in this line)',
    all: [
      /Back-off pulling image|ErrImagePull|ImagePullBackOff|Failed to pull image|failed to pull and unpack image|image pull failed|Error while pulling|Error pulling|failed pulling image|Failed to pull|failing to pull|CannotPullContainerError|pull QPS/i,
    ],
    filter: ['ailed', 'rror', 'ErrImagePull', 'BackOff', 'Back-off', 'ailing', 'QPS'],
  },
];

/** Lines that look alarming but report progress or success; never a failure of any class. */
export const INFORMATIONAL: readonly RegExp[] = [
  /^Pulling image "|^pulling image "|^Pulling sandbox image/,
  /Successfully pulled image|Pulled successfully|already present on machine/i,
  /msg="PullImage|msg="ImageCreate event|msg="ImageUpdate event|msg="Pulled image|msg="RunPodSandbox for|msg="StartContainer for|msg="CreateContainer within sandbox/,
];
