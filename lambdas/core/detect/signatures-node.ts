import { poolFull, type Signature } from './signature-parts.js';

/**
 * A node launcher's own EC2 calls (Karpenter, cluster-autoscaler, EMR, a fleet): RunInstances/CreateFleet and
 * the launch they serve. Refused or without credentials alike they are no VPC CNI permission: the VPC CNI never
 * launches instances.
 */
const NODE_LAUNCH =
  /ec2:RunInstances|ec2:CreateFleet|ec2:CreateLaunchTemplate|ec2:TerminateInstances|fleet error|nodeclaim|NodeClass|launching node|launch node|launching instance|launching machine|controller\.provisioning|RunInstancesAuth/i;

/** Callers that are not aws-node, refused or without credentials alike: ECR clients, the VPC resource controller, node launchers. */
const NOT_AWS_NODE_CALLS: readonly RegExp[] = [/ecr:|ecr\.amazonaws|branch ENI|vpc-resource-controller/i, NODE_LAUNCH];

/**
 * Node-level causes, in priority order: the node's disk, the VPC CNI's permissions, IP addresses and
 * ipamd, and the node's process table. Part of the catalogue (signatures.ts): same rules, quantifier-free.
 */
export const NODE_SIGNATURES: readonly Signature[] = [
  {
    id: 'pid.clone-enospc',
    class: 'pid-exhaustion',
    cause:
      'the node ran out of PIDs: creating a thread or process failed with ENOSPC (kernels 4.15-4.16 report a full PID space so)',
    // Before disk.no-space: the same words, but from pthread_create/fork/clone they name the PID space.
    all: [
      /pthread_create failed: No space left on device|fork: No space left on device|fork: retry: No space left on device|clone: No space left on device/i,
    ],
    filter: ['o space'],
  },
  {
    id: 'disk.no-space',
    class: 'disk-full',
    cause: 'the node filesystem is full (no space left on device)',
    all: [
      /no space left on device|disk quota exceeded|garbage collect required amount|FreeDiskSpaceFailed|ImageGCFailed/i,
    ],
    filter: ['o space', 'xceed', 'ailed'],
  },
  {
    id: 'disk.eviction',
    class: 'disk-full',
    cause: 'kubelet is evicting pods to reclaim node disk (ephemeral storage, nodefs or imagefs below threshold)',
    // The eviction manager acting, not kubelet's configuration (HardEvictionThresholds, MinReclaim) at start; its
    // node-level reclaim (image and container GC) failing is "unexpected error when attempting to reduce <fs> pressure".
    all: [
      /ephemeral-storage|nodefs|imagefs|inodes/i,
      /to reclaim|must evict|low on resource|evicted|evicting|EvictionThresholdMet|no ranking function for resource|attempting to reduce/i,
    ],
    // 'evict': the eviction manager's own words ("must evict", "eviction thresholds have been met, but no pods are active
    // to evict"), some of which name no filesystem.
    filter: ['ephemeral', 'nodefs', 'imagefs', 'inodes', 'evict'],
  },
  {
    id: 'disk.pressure',
    class: 'disk-full',
    cause: 'kubelet reports disk pressure on the node (node condition DiskPressure, its taint or its eviction)',
    // Only the pressure itself: NodeHasNoDiskPressure / "kubelet has no disk pressure" contain none of these.
    all: [
      /HasDiskPressure|has disk pressure|had disk pressure|condition: \[DiskPressure\]|node.kubernetes.io\/disk-pressure/i,
    ],
    // One term for the three spellings (DiskPressure, disk pressure, disk-pressure): 'ressure'.
    filter: ['ressure'],
  },
  {
    id: 'cidr.insufficient-blocks',
    class: 'cidr-fragmentation',
    cause: 'no free aligned /28 block in the subnet for a prefix delegation (InsufficientCidrBlocks)',
    // EC2 says "There are not enough free cidr blocks", the VPC resource controller "does not have enough
    // free cidr blocks"; before the Windows warm pool, whose empty-pool event names this cause. ipamd's
    // cool-down says "InsufficientCidr error"; its debug "containsInsufficientCIDRsOrSubnetIPs encountered <err>"
    // prints EVERY EC2 error it checks, so the function's name alone is no cause.
    all: [/InsufficientCidrBlocks|enough free cidr blocks|InsufficientCidr error/i],
    filter: ['sufficient', 'blocks'],
  },
  {
    id: 'windows.warm-pool',
    class: 'ip-exhaustion',
    cause:
      "the VPC resource controller has no free IP in the Windows node's warm pool (every IP of the node assigned, or the pool not refilled)",
    // pool.go's ErrPoolAtMaxCapacity and ErrWarmPoolEmpty, and warm.go's ResourceAllocationFailed event;
    // "being cooled down" / "being created" are transient and stay unknown.
    all: [/cannot assign any more resource from warm pool|warm pool is empty|is currently empty, will retry/i],
    filter: ['pool'],
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
    // The resource controller's warm-pool events name the resource too: IPs still cooling down or being created are
    // transient (handler/warm.go requeues), not a missing label.
    none: [/being cooled down|being created/i],
    filter: ['rivate'],
  },
  {
    id: 'cni.windows-pod-ip',
    class: 'cni-failure',
    cause:
      "the Windows CNI (vpc-bridge) could not get the pod's IP from the VPC CNI's k8s connector (the named pipe or the connector binary failed on the node)",
    // amazon-vpc-cni-plugins vpc-bridge (config/k8s_connector.go, config/k8s/connector.go, pipe.go) since 2023 wraps
    // every GetPodIP error alike: pipe errors are node-local, the connector's own error is its stderr. Nothing here
    // says the controller assigned no IP, so it is the plugin failing, not Windows IPAM (windows.ipam-label).
    all: [/failed to get pod IP address/i, /connector|named pipe|Kubernetes args/i],
    filter: ['ailed'],
  },
  {
    id: 'windows.unsupported-instance',
    class: 'windows-ipam',
    cause:
      "the VPC resource controller does not support the Windows node's instance type: it never advertises vpc.amazonaws.com/PrivateIPv4Address there",
    // ip/provider.go's Unsupported node event: Windows pods needing an IP from the controller cannot run on the node.
    all: [/instance type/i, /is not supported for Windows/i],
    filter: ['pported'],
  },
  {
    id: 'branch-eni.failed',
    class: 'branch-eni',
    cause:
      'the VPC resource controller could not allocate or annotate a branch ENI (security groups for pods): control-plane side',
    all: [
      // node.go's Unsupported event for an instance type the controller does not know at all ("… is not supported yet by
      // the vpc resource controller"): no trunk and no pod ENI on the node, whatever the pod asks for.
      /branch ENI|BranchENI|branch-eni|trunk ENI|TrunkENI|trunk interface|vpc\.amazonaws\.com\/pod-eni|not supported yet by the vpc resource controller/i,
      // ipamd's AddNetwork for a pod-ENI pod on a node without a trunk (rpc_handler.go), and ipamd finding no free
      // device slot for the trunk (ipamd.go), fail the pod as surely as the controller's errors.
      /fail|error|Insufficient|no instance type satisfied|could not schedule|cannot add a pod ENI|No slot available|not supported for trunk interface|not supported yet/i,
    ],
    // A branch or trunk ENI the subnet has no address for is the subnet's exhaustion (ip.subnet-exhausted); the
    // plugin's own VLAN and routes for a branch-ENI pod failing on the node is the node's CNI (cni.add-failed).
    none: [
      /InsufficientFreeAddresses|not have enough free addresses|SetupBranchENIPodNetwork|TeardownBranchENIPodNetwork|SetupPodENINetwork/i,
    ],
    // 'pported': the controller's Unsupported node event ("… is not supported for trunk interface", branch/provider.go).
    filter: ['ENI', 'ailed', 'pod-eni', 'pported'],
  },
  {
    id: 'cni.unauthorized',
    class: 'cni-permissions',
    cause: 'the VPC CNI is not authorized to manage ENIs/IPs: AmazonEKS_CNI_Policy missing from the role aws-node uses',
    all: [
      /UnauthorizedOperation|MissingIAMPermissions|not authorized to perform: ec2:|AuthFailure: You are not the owner|Unauthorized operation: failed to call|due to missing permissions/i,
      // The VPC CNI's call: any other EC2 client (a Lambda, Packer, a reporting tool, the aws CLI) refused alike is
      // no CNI permission. ipamd names its call, the ENI or ec2:<Action>, or is aws-node / aws-k8s-agent itself.
      // awsutils' own words around a refused call: awsGetFreeDeviceNumber reading the instance "from EC2 control plane",
      // "allocate eni", "Failed to allocate a private IP address" (2018-2019 seelog releases).
      /ipamd|aws-node|aws-k8s-agent|amazon-vpc-cni|aws-cni|ec2:|NetworkInterface|PrivateIp|\bENI|Prefix|MissingIAMPermissions|missing permissions|Initialization failure|awsGetFreeDeviceNumber|EC2 control plane|allocate eni|private IP address/i,
    ],
    // The resource controller's own role creating branch and trunk ENIs is no aws-node permission (branch-eni).
    none: [/ecr:|ecr\.amazonaws|branch ENI|trunk interface|vpc-resource-controller/i, NODE_LAUNCH],
    filter: ['uthori', 'IAM', 'AuthFailure'],
  },
  {
    id: 'cni.ec2-not-authorized',
    class: 'cni-permissions',
    cause:
      "EC2 refused the VPC CNI's ENI/IP call as not authorized: AmazonEKS_CNI_Policy missing from the role aws-node uses",
    // EC2's UnauthorizedOperation message text, named without its code, in a VPC CNI call.
    all: [
      /You are not authorized to perform this operation|Encoded authorization failure message/i,
      /ipamd|aws-node|aws-k8s-agent|amazon-vpc-cni|aws-cni|ec2:|NetworkInterface|PrivateIp|\bENI|Prefix/i,
    ],
    none: NOT_AWS_NODE_CALLS,
    filter: ['uthori'],
  },
  {
    id: 'cni.credentials',
    class: 'cni-permissions',
    cause:
      'the VPC CNI has no usable AWS credentials (IRSA / Pod Identity role, OIDC provider or node role) to manage ENIs',
    all: [
      /WebIdentityErr|AssumeRoleWithWebIdentity|InvalidIdentityToken|NoCredentialProviders|EC2RoleRequestError|failed to refresh cached credentials|no EC2 IMDS role found|InvalidClientTokenId|ExpiredToken|SignatureDoesNotMatch|security token included in the request is invalid|169\.254\.170\.23|AWS was not able to validate the provided access credentials/i,
      /ipamd|aws-node|aws-k8s-agent|amazon-vpc-cni|aws-cni|ec2:|NetworkInterface|DescribeInstances|AssignPrivateIp|\bENI/i,
    ],
    none: NOT_AWS_NODE_CALLS,
    filter: ['redential', 'ailed', 'uthori', 'rror'],
  },
  {
    id: 'ipamd.ec2-unreachable',
    class: 'ipamd-unavailable',
    cause:
      'ipamd cannot reach the EC2 API (no route, DNS, timeout or proxy): it can neither read nor attach ENIs, so the node hands out no pod IPs',
    // awsutils' "Failed to call ec2:<Action>" wrapping the SDK's network error, or the EC2 endpoint named in it.
    all: [
      /Failed to call ec2:|https:\/\/ec2\.|DescribeNetworkInterfaces|AssignPrivateIpAddresses|CreateNetworkInterface|AttachNetworkInterface/i,
      /send request failed|no route to host|i\/o timeout|connection refused|no such host|TLS handshake timeout|request canceled|network is unreachable/i,
    ],
    none: [/ecr\.|ecr:/i],
    filter: ['ailed', 'dial tcp', 'imeout', 'refused', 'unreachable', 'o such'],
  },
  {
    id: 'ip.subnet-exhausted',
    class: 'ip-exhaustion',
    cause: 'the subnet has no free IP addresses (InsufficientFreeAddressesInSubnet)',
    // EC2's code, and the EKS managed node group health code InsufficientFreeAddresses for the same cause.
    all: [
      // awsutils' AllocENI with subnet discovery when no tagged subnet could give the ENI (each tried subnet failed, or
      // every subnet is excluded with kubernetes.io/role/cni=0): the pool cannot grow; ipamd only ever logs it wrapped in
      // "Failed to increase pool size …" / "Failed to allocate … on an ENI" / "Error trying to allocate ENI".
      // Azure's code for the same cause (a Karpenter or CNI IP request against a full subnet): "SubnetIsFull: Subnet …
      // does not have enough capacity for 1 IP addresses".
      /InsufficientFreeAddresses|does not have enough free addresses|not enough free addresses|not have enough available IP addresses|doesn't seem to have enough IPs|sufficient free Ipv4 addresses|sufficient free Ipv6 addresses|no valid subnets available for ENI creation|SubnetIsFull/i,
    ],
    filter: ['sufficient', 'vailable', 'ailed', 'rror', 'IsFull'],
  },
  {
    id: 'ip.eni-limit',
    class: 'ip-exhaustion',
    cause: 'the instance reached its ENI / IP-per-ENI limit',
    all: [
      // awsGetFreeDeviceNumber with every device index of the instance taken (awsutils.go): no slot for another ENI.
      /PrivateIpAddressLimitExceeded|AttachmentLimitExceeded|NetworkInterfaceLimitExceeded|private addresses will exceed limit|max ENI already attached|out of ENIs|maximum number of ENIs|ENI limit|eni attachment limit|no available device number/i,
    ],
    // ipamd's debug "containsPrivateIPAddressLimitExceededError encountered <err>" prints every error it checks;
    // its "AssignPrivateIpAddresses returned PrivateIpAddressLimitExceeded. This can happen if the data store is
    // out of sync" returns without an error and reconciles with EC2 (ipamd.go): neither is the ENI at its limit.
    // ipamd not knowing the instance type's limits ("Failed to get ENI limit(s) …", awsutils' "unknown instance type")
    // stops its start (ipamd.startup), whatever the pool.
    none: [
      /less than the maximum|LimitExceededError encountered|data store is out of sync|Failed to get ENI limit|Failed to get IPs per ENI limit/i,
    ],
    filter: ['xceed', 'ENI', 'ailed'],
  },
  {
    id: 'ip.datastore-empty',
    class: 'ip-exhaustion',
    cause: 'ipamd has no free IP address or prefix for the pod (warm pool empty)',
    all: [
      /no available IP|no available IPs|failed to assign an IP address|failed to assign IP address|failed to assign an IPv4 address|failed to assign an IPv6 address|AssignPodIPv4Address: no|assignPodIPAddress: no|no free IP available in the|IP address pool is exhausted|ran out of IP|range is full|no IP addresses available|Insufficient IP Addresses|no IPs available|no more IPs|no more free IP|IP addresses available: 0|pools are likely exhausted|IPAM allocated only 0|IPAM block limit reached|Assigned 0 out of|no remaining CIDRs left|CIDRNotAvailable|no more free affine blocks|Could not allocate IP in range/i,
    ],
    // Walking its pool for one pod, ipamd logs each full CIDR ("Get free IP from prefix failed", "Unable to get IP
    // address from CIDR/prefix": one line per assigned /32 in secondary-IP mode) and each full ENI ("ENI … does not
    // have available addresses") at debug and moves on; only the end of the walk, "no available IP/Prefix
    // addresses", is the pool exhausted (datastore/data_store.go). "Insufficient IP Addresses due to: <code>" is
    // printed for any EC2 error code (ipamd.go); its two capacity codes have their own signatures above. Cilium's
    // "unable to allocate IP via local cilium agent" wraps any IPAM error: only its cause says "full".
    // Calico's AutoAssign summary (libcalico-go ipam.go): "Assigned 0 out of N requested", "IPAM block limit reached".
    // kube-controller-manager's range allocator with no node CIDR left in the cluster CIDR (cidrset's
    // ErrCIDRRangeNoCIDRsRemaining, the node's CIDRNotAvailable event): the node gets no pod range. Calico with
    // strict affinity and no block left ("No more free affine blocks"), whereabouts' AssignmentError ("Could not
    // allocate IP in range"). Cilium's agent logs the allocator's "range is full" (k8s ipallocator ErrFull) as
    // logfmt error="…" with no "failed" ("Error while allocating cilium-health IP", cilium#5517): 'rror' is that
    // key, already a term of the catalogue (the pattern is unchanged).
    none: [
      /Get free IP from prefix failed|Unable to get IP address from CIDR|Unable to get IP address from prefix|does not have available addresses|Insufficient IP Addresses due to/i,
    ],
    filter: [
      'vailable',
      'ailed',
      'PodIP',
      'free IP',
      'xhausted',
      'ut of IP',
      'pool',
      'sufficient',
      'IPAM',
      'igned 0',
      'CIDRNot',
      'llocate',
      'rror',
    ],
  },
  {
    id: 'ip.pool-full',
    class: 'ip-exhaustion',
    cause: 'ipamd is asked for a pod IP while every IP in its pool is assigned (pool stats: assigned = total)',
    all: [/AssignPodIPv4Address: IP address pool stats|AssignIPv4Address: IP address pool stats/i],
    when: poolFull,
    filter: ['pool'],
  },
  {
    id: 'ipamd.unreachable',
    class: 'ipamd-unavailable',
    cause: 'the aws-cni plugin cannot reach ipamd (aws-node is not running or not ready on the node)',
    all: [
      /:50051|ipamd\.sock|aws-node\/ipamd|AddNetwork gRPC call|AddNetwork grpc call|failed to connect to backend server/i,
      // gRPC's Unavailable and DeadlineExceeded: ipamd did not answer the plugin's call (an ipamd error is code = Unknown).
      /Error while dialing|error dialing|connection error|failed to connect|connect: connection refused|connect: no such file|timeout|code = Unavailable|code = DeadlineExceeded|deadline exceeded|transport is closing/i,
    ],
    filter: ['50051', 'ipamd', 'rror', 'ailed'],
  },
  {
    id: 'ipamd.cannot-serve',
    class: 'ipamd-unavailable',
    cause:
      "ipamd (or aws-node's network policy agent) cannot serve: it failed to listen on its gRPC port or socket, so aws-node never becomes ready",
    // rpc_handler.go: "Failed to listen gRPC port" / "Failed to listen on Unix socket <ipamd.sock>", "Failed to start
    // server on gRPC port", and their wrapped returns; aws-node then exits or never becomes ready. ipamd binds
    // 127.0.0.1:50051 (any other server on :50051, grpc-go's quickstart, is no ipamd).
    all: [
      /127\.0\.0\.1:50051|ipamd|network policy agent/i,
      /failed to listen|Failed to listen|failed to start server|Failed to start server|address already in use/i,
    ],
    filter: ['50051', 'ipamd', 'ailed'],
  },
  {
    id: 'ipamd.health-probe',
    class: 'ipamd-unavailable',
    cause: "aws-node's gRPC health probe cannot get a SERVING answer from ipamd (aws-node not ready)",
    // grpc-health-probe's failures (cmd/grpc-health-probe/main.go) in aws-node's readiness/liveness probe; the probe
    // serves other programs too, so aws-node, ipamd or its port must be named on the line.
    all: [
      /health rpc failed|health rpc did not complete|service unhealthy \(responded with|failed to connect service/i,
      /aws-node|ipamd|:50051|aws-k8s-agent/i,
    ],
    filter: ['aws-node', 'ipamd', '50051', 'ailed'],
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
    // kubelet and containerd print the uninitialized plugin inside NetworkPluginNotReady or a 'failed' error; the CRI
    // status message alone is "Network plugin returns error: <cause>" (containerd internal/cri/server/status.go).
    filter: ['NotReady', 'ot ready', 'networks', 'ailed', 'rror'],
  },
  {
    id: 'cni.eniconfig',
    class: 'cni-failure',
    cause:
      'custom networking is on but ipamd finds no ENIConfig for the node (missing CR, wrong zone name or label), so it attaches no ENI for pods',
    // ipamd.go's nodeInit and tryAllocateENI, eniconfig.go's MyENIConfig (ErrNoENIConfig).
    all: [
      /No ENIConfig could be found|Failed to get pod ENI config|error while retrieving eniconfig|eniconfig is not available/i,
    ],
    filter: ['ENI', 'rror'],
  },
  {
    id: 'ipamd.startup',
    class: 'ipamd-unavailable',
    cause: 'ipamd (aws-node) did not start or cannot reach the API server, so the node hands out no pod IPs',
    all: [
      // aws-k8s-agent's "Initialization failure: <err>" for nodeInit's own errors (custom networking without ENIs, a
      // failed first pool increase), awsutils without IMDS (no region), the init container without its binaries, and
      // nodeInit retrying an attached ENI's setup before ipamd serves anything ("Error trying to set up ENI"), the init
      // container exiting 1 (aws-vpc-cni-init: binaries, IMDS for the primary MAC, sysctls), and no
      // ENI/IP limits for the instance type (vpc_ip_limits or DescribeInstanceTypes: New() returns, aws-node exits), nor
      // its hypervisor family ("Failed to get hypervisor info due to unknown instance type", aws/amazon-vpc-cni-k8s#1601).
      // Not entrypoint.sh's "Retrying waiting for IPAM-D": wait_for_ipam's step, printed each time the health probe
      // gets no answer yet, for seconds at every normal start; the loop's failing end is "Timed out waiting for IPAM daemon".
      /Unable to reach API Server|Initialization failure: ipamd|ipamd init|IPAM daemon|IPAM connectivity|Failed to communicate with K8S Server|Failed to check API server connectivity|error communicating with apiserver|ipamd init: failed|ipamd is not running|aws-node is not ready|Failed to attach any ENIs for custom networking|error while trying to increase datastore pool|region data from instance metadata|failed to retrieve region data|Failed to install CNI binar|Failed to install binaries|Init container failed to complete|Failed to get primary MAC from IMDS|Failed to configure system parameters|Failed to configure IPv6 settings|Error trying to set up ENI|Failed to get ENI limit|Failed to get IPs per ENI limit|Failed to get eni IP limit|vpc ip resource|Failed to get hypervisor/i,
      /retrying|fail|timed out|timeout|error|not running|not ready|unknown instance type/i,
    ],
    filter: ['IPAM', 'ipamd', 'ailed', 'rror', 'aws-node'],
  },
  {
    id: 'pid.fork-eagain',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: fork/exec failed with resource temporarily unavailable',
    all: [
      /resource temporarily unavailable|EAGAIN/i,
      // C++'s std::thread reports a failed pthread_create as std::system_error, printed "what():  Resource …".
      // systemd's setup_pam forks its (sd-pam) session child: "PAM failed: %m" is errno (PAM's own errors print
      // pam_strerror), then "Failed to set up PAM session: %m" / "Failed at step PAM spawning …" (src/core/execute.c).
      /fork\/exec|containerd-shim|runc|start shim|clone|thread|pthread_create|fork|exec|spawn|Cannot run program|std::system_error|what\(\):|PAM failed|PAM session|step PAM/i,
    ],
    filter: ['vailable', 'rror', 'ailed'],
  },
  {
    id: 'pid.thread-errno11',
    class: 'pid-exhaustion',
    cause: 'the node ran out of PIDs/threads: cannot create a process or OS thread (EAGAIN)',
    all: [
      /failed to create new OS thread|fatal error: newosproc|pthread_create failed|errno=11\b|errno 11\b|error=11,|max user processes|InsufficientPID|insufficient PID|reclaim pids|resourceName="pids"|resourceName=pids|"resourceName":"pids"|cannot allocate memory: fork|Cannot fork|fork: retry|fork rejected by pids controller|create new native thread|create native thread|can't start new thread|Failed to create thread|== \(uv_thread_create|Cannot create GC thread|Cannot create worker GC thread|pids limit reached|pids cgroup limit|low on resource: pids|node\.kubernetes\.io\/pid-pressure|condition: \[PIDPressure\]/i,
    ],
    // Node.js asserts its libuv worker threads start ("Assertion failed: (0) == (uv_thread_create(…))", node_platform.cc):
    // a thread the process could not create, as "Failed to create thread" is.
    // The Go runtime prints the errno newosproc got and advises ulimit -u only for EAGAIN (runtime/os_linux.go:
    // `if ret == -_EAGAIN { println("runtime: may need to increase max user processes (ulimit -u)") }`): any other
    // errno is no process limit (12 ENOMEM is memory, 22 EINVAL an emulated clone under QEMU, IBM/istio101#185).
    // It throws "newosproc" right after that print whatever the errno, so the throw alone reads as the print alone
    // does: EAGAIN unless another errno is on the line.
    none: [/errno=([0-9]|1[02-9]|[2-9][0-9]|[1-9][0-9][0-9])\b/],
    // kubelet's PID pressure as disk.pressure reads disk pressure: its taint and the eviction's node condition.
    filter: ['ailed', 'errno', 'processes', 'sufficient', 'pids', 'fork', 'rror', 'ressure'],
  },
];
