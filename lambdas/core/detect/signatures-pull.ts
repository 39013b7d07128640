import {
  API_SERVER,
  AUTH,
  AUTH_CHALLENGE,
  CRICTL_PROBE,
  FAILURE,
  LOCAL_SOCKET,
  NOT_A_PULL,
  NOT_FOUND,
  PULL,
  REGISTRY,
  SANDBOX,
  type Signature,
  standaloneRefusal,
  UNREACHABLE,
  UNREACHABLE_TERMS,
} from './signature-parts.js';

/**
 * Causes met while a pod's sandbox or images are prepared, in priority order: the node's sandbox
 * (pause) image, image platform, the CNI ADD, the runtime, then the registry's answers and the network
 * path to it. Part of the catalogue (signatures.ts): same rules, quantifier-free.
 */
export const PULL_SIGNATURES: readonly Signature[] = [
  {
    id: 'sandbox.image-deleted',
    class: 'sandbox-image',
    cause:
      "the node's sandbox (pause) image was deleted (image garbage collection): pods on the node fail once it is needed and cannot be pulled",
    // containerd logs every image removal as an ImageDelete event with the image's name (internal/cri/server/events.go);
    // kubelet's image GC removes by ID, so the name appears here only.
    all: [/ImageDelete event/, SANDBOX],
    filter: ['pause', 'box image', 'box-image'],
  },
  {
    id: 'sandbox.image',
    class: 'sandbox-image',
    cause: "the node's sandbox (pause) image is missing or cannot be pulled (credentials, network or deleted image)",
    all: [SANDBOX, FAILURE],
    // kubelet's "No sandbox for pod can be found" and progress of the pull script are not failures.
    none: [/Successfully pulled|already present on machine|Starting pull sandbox image/i, CRICTL_PROBE],
    filter: ['box image', 'box-image', 'pause'],
  },
  {
    id: 'sandbox.image-dockershim',
    class: 'sandbox-image',
    cause:
      "the node's sandbox (pause) image cannot be pulled: dockershim pulls it inside RunPodSandbox and returns the pull error unnamed",
    // kubelet's dockershim (pkg/kubelet/dockershim/helpers.go ensureSandboxImageExists) returns dockerd's pull error
    // as is when the keyring has credentials (ECR), so "Failed create pod sandbox: … error pulling image configuration"
    // names no image: the only image a sandbox pulls is the pause image. containerd names it ("failed to get sandbox
    // image"), which sandbox.image reads.
    all: [
      /Failed create pod sandbox|Failed to create pod sandbox|FailedCreatePodSandBox|RunPodSandbox from runtime service failed|CreatePodSandbox for pod/i,
      /error pulling image configuration|Error response from daemon: Get |Error response from daemon: Head |Error response from daemon: pull access denied/i,
    ],
    filter: ['ailed'],
  },
  {
    id: 'image.platform',
    class: 'image-platform',
    cause: "the image has no variant for the node's OS/architecture",
    // dockerd before 17.03 said "no supported platform found in manifest list" (distribution/pull_v2.go).
    all: [
      /no match for platform|no match for current platform|no supported platform found|no matching manifest for|could not find platform|does not match the specified platform|exec format error|image operating system|cannot be used on this platform|does not match the host operating system|does not match the detected host platform|does not match the operating system of the host|no image found in manifest list for architecture|no image found in image index for architecture|cannot download image with operating system/i,
    ],
    // Substrings of 'matching manifest' and 'operating system' (room for disk.eviction's 'evict').
    filter: ['latform', 'manifest', 'rror', 'rating system'],
  },
  {
    id: 'image.platform-windows-version',
    class: 'image-platform',
    cause:
      "the Windows image was built for another Windows version than the node's (process isolation needs the same build)",
    // moby's Windows puller (distribution/pull_v2_windows.go): "a Windows version X-based image is incompatible with a
    // Y host", reported as an error by dockerd's handler and kubelet (no platform word, hence its own terms).
    all: [/-based image is incompatible with a /, /rror|ailed/],
    filter: ['rror', 'ailed'],
  },
  {
    id: 'cni.add-failed',
    class: 'cni-failure',
    cause: 'the CNI plugin failed to set up the pod network',
    // dockershim-era kubelet wraps any plugin error as "Error while adding to cni network: <err>" (its cni.go).
    all: [
      /failed to set up sandbox container|failed to find plugin|failed to set bridge addr|failed to call cni|Error adding network|HNSEndpoint|hnsCall failed|hcn endpoint|hcnOpenNamespace|of network plugin|failed to setup network for sandbox|failed to set up network for sandbox|failed \(add\)|networkPlugin cni failed|NetworkPlugin cni failed|failed to set up pod network|failed to setup network|add cmd: |plugin type=|netplugin failed|SetupPodNetwork|failed to setup veth|network policy agent|default network policy|adding to cni network/i,
      /fail|error/i,
    ],
    // kubelet tearing a sandbox down ("error killing pod: failed to \"KillPodSandbox\" … failed to teardown pod"): the
    // CNI DEL of a pod already gone, no pod start failing (aws/amazon-vpc-cni-k8s#155).
    none: [/KillPodSandbox|error killing pod/],
    filter: ['ailed', 'rror', 'HNS', 'hcn', 'rk plugin', 'add cmd', 'in type'],
  },
  {
    id: 'runtime.oci',
    class: 'runtime-failure',
    cause: 'the container runtime could not start the sandbox or container',
    all: [
      /OCI runtime|runc create failed|runc run failed|unable to start container process|starting container process caused|container init caused|error during container init|applying cgroup configuration|setting cgroup config|failed to create shim|failed to create containerd task|failed to start containerd task|failed to create task|failed to start sandbox container|failed to create containerd container|failed to reserve sandbox name|failed to start shim|ttrpc: closed|binary not installed|Container creation error|container create failed|init pipe|init-p: |failed to start sandbox|failed to get sandbox runtime|no runtime for|failed to find runtime handler|failed to create sandbox root|failed to create network namespace for sandbox|failed to setup sandbox files|failed to generate sandbox container spec|failed to create container io|failed to get sandbox container task|failed to wait for sandbox container task|failed to load shim|failed to resolve runtime path|runc console socket|error creating overlay mount|failed to mount rootfs|is already in use by container|failed to create a sandbox for pod|failed to reserve container name|failed to create sandbox|failed to load task|NRI RunPodSandbox failed|sandbox shm|failed to start container|error reserving ctr name|error reserving pod name|unable to ensure pod container exists|failed to wait for containerd task|failed to create container loggers|failed to create lease for sandbox name|shim error: /i,
    ],
    // A runtime that pulls the image itself (confidential containers) wraps a registry refusal in its
    // shim error: the cause is the registry's answer, not the runtime.
    // podman probes every configured OCI runtime at start and logs each one not installed at debug (libpod runtime.go).
    none: [
      /authentication required|401 Unauthorized|403 Forbidden|pull access denied|no basic auth credentials|no valid executable found for OCI runtime/i,
    ],
    filter: ['OCI', 'ailed', 'rror', 'o such', 'EOF'],
  },
  {
    id: 'runtime.content-store',
    class: 'runtime-failure',
    cause:
      "containerd cannot read a blob from its own content store while unpacking an image (lost or unreadable content, or a layer media type the unpacker does not handle): the node's runtime, not the registry's answer",
    // metadata/content.go "content digest <d>: not found" read by the unpacker ("failed to get reader from content
    // store", pull.go "failed to unpack image on snapshotter"); a registry's missing blob is "content at <url> not found".
    all: [/failed to get reader from content store|content digest sha256:/i, /not found|failed/i],
    filter: ['ailed', 'ot found'],
  },
  {
    id: 'runtime.unreachable',
    class: 'runtime-failure',
    cause: 'the container runtime (containerd / dockerd / CRI socket) is not answering on the node',
    all: [
      /containerd\.sock|dockershim\.sock|cri-dockerd\.sock|crio\.sock|docker\.sock|\/run\/containerd\/s\//i,
      /connection refused|no such file or directory|Error while dialing|connection error|transport is closing|deadline exceeded|i\/o timeout/i,
    ],
    none: [CRICTL_PROBE],
    filter: ['refused', 'o such', 'rror', 'xceed', 'imeout'],
  },
  {
    id: 'runtime.connection-lost',
    class: 'runtime-failure',
    cause:
      "the connection between kubelet (or dockerd's API client) and the container runtime broke mid-call: the runtime restarted, crashed or stalled",
    // grpc-go's "error reading from server" / "transport is closing" on kubelet's CRI connection (code Unavailable),
    // a reset or broken pipe on the runtime's unix socket; only in a CRI call or the runtime's own API handler.
    all: [
      /code = Unavailable desc = error reading from server|code = Unavailable desc = transport is closing|read unix @->|write unix \/var\/run\/docker\.sock|write unix \/run\/containerd|write unix \/run\/docker\.sock/i,
      /PullImage|RunPodSandbox|pod sandbox|CreateContainer|StartContainer|image service|runtime service|containerd|docker\.sock|dockershim|Failed to pull image|Handler for/i,
      /rror|ailed|navailable|reset/,
    ],
    filter: ['rror', 'ailed', 'vailable', 'reset'],
  },
  {
    id: 'runtime.cri-unimplemented',
    class: 'runtime-failure',
    cause:
      "the container runtime answers but does not serve the CRI API the caller speaks (containerd's CRI plugin disabled in config.toml, or a runtime older than the kubelet): kubelet 1.26+ cannot start",
    // grpc-go answers a service the server never registered with Unimplemented "unknown service <name>";
    // kubelet, kubeadm's preflight and crictl report it as "CRI v1 runtime API is not implemented for endpoint".
    all: [
      /unknown service runtime\.v1\.RuntimeService|unknown service runtime\.v1\.ImageService|unknown service runtime\.v1alpha2\.RuntimeService|unknown service runtime\.v1alpha2\.ImageService|CRI v1 runtime API is not implemented|CRI v1 image API is not implemented/i,
    ],
    // Both arrive as a gRPC status: "rpc error: code = Unimplemented desc = unknown service …".
    filter: ['rror'],
  },
  {
    id: 'runtime.config',
    class: 'runtime-failure',
    cause: 'containerd cannot read its configuration (/etc/containerd/config.toml) and does not start',
    // containerd's main prints "containerd: <err>" (cmd/containerd/main.go); its config loader wraps every error,
    // a v1-form plugin URI in a v2+ config included, in "failed to load TOML from <path>" (2.x; "failed to load
    // TOML: <path>" in 1.x).
    all: [/failed to load TOML/, /containerd/i],
    filter: ['ailed'],
  },
  {
    id: 'registry.rate-limit',
    class: 'rate-limited',
    cause: 'the registry or kubelet throttled the pull (Docker Hub toomanyrequests, 429, pull QPS)',
    all: [
      /toomanyrequests|pull rate limit|Too Many Requests|pull QPS exceeded|rate limit exceeded|ThrottlingException/i,
    ],
    // 'anyrequests': toomanyrequests, shortened to make room for disk.eviction's 'evict' (a substring: same lines pass).
    filter: ['anyrequests', 'limit', '429', 'xceed'],
  },
  {
    id: 'registry.credential-network',
    class: 'registry-unreachable',
    cause: 'the node cannot reach the registry credential endpoint (ECR API) to get a pull token',
    all: [
      /request send failed|dial tcp|no such host|i\/o timeout|connection refused|network is unreachable/i,
      /authorization token|GetAuthorizationToken|retrieving credentials|credential provider|anonymous token|oauth token|retrieve ecr registry auth/i,
    ],
    // No role from the instance metadata service is a credentials problem, not a network one.
    none: [/IMDS|169\.254\.169\.254|security-credentials/i],
    filter: ['ailed', 'dial tcp', 'o such', 'imeout', 'refused', 'unreachable'],
  },
  {
    id: 'registry.auth',
    class: 'registry-auth',
    cause: 'the registry refused the pull credentials (node role ECR policy, repository policy or imagePullSecrets)',
    all: [
      AUTH,
      // The image-credential path, not any AWS SDK client: cert-manager or the autoscaler without credentials is no pull.
      // A remote snapshotter (SOCI, stargz) fetches layer blobs from the registry lazily: its refusals are the registry's.
      /pull access denied|not authorized to perform: ecr:|GetAuthorizationToken|credential provider|aws_credentials|while getting AWS credentials|ecr-credential|ECR credentials|docker login|CannotPullECRContainerError|connect to blob|fetch blob|fetching blob|snapshotter|registry|docker|\bdaemon\b|image|pull|\becr|manifest|\/v2\/|anonymous token|oauth token|fetch token|\/token|authorization token|auth token/i,
    ],
    // The Kubernetes API server's RBAC denial ('secrets "x" is forbidden: User "…" cannot get resource') is no
    // registry's answer; nor are "secret" and "daemonset", which only contain the words ecr and daemon. A token is
    // the registry's when its flow is named (anonymous/oauth token, fetch token, the /token endpoint), not any token
    // (a service account's, a session's). NOT_A_PULL: a Git/Helm source refused while Argo CD renders manifests
    // ("manifest" there is a Kubernetes manifest), and ECR API calls no pull makes (listing, describing, pushing).
    none: [
      /is forbidden: User |cannot get resource|cannot list resource|cannot watch resource/,
      NOT_A_PULL,
      AUTH_CHALLENGE,
      // aws-sdk-go v1 (< 1.47.11) refusing the EKS Pod Identity agent's link-local credentials endpoint ("Ignoring, HTTP
      // credential provider invalid endpoint host, \"169.254.170.23\", only loopback hosts are allowed"): an
      // application's SDK too old for Pod Identity, no image credential provider (kubernetes/autoscaler#6392).
      /HTTP credential provider invalid endpoint host/,
    ],
    // 'ailed': the ECS agent's "execution resource retrieval failed: unable to retrieve ecr registry auth".
    filter: ['401', '403', 'uthori', 'orbidden', 'redential', 'uthent', 'enied', 'login', 'token', 'IMDS', 'ailed'],
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
    // Go's net/http "http: server gave HTTP response to HTTPS client" names no certificate: 'HTTPS'.
    filter: ['x509', 'tls:', 'ertificate', 'HTTPS'],
  },
  {
    id: 'registry.unreachable',
    class: 'registry-unreachable',
    cause: 'the node cannot reach the registry (timeout, reset, refused connection or DNS)',
    all: [UNREACHABLE, PULL],
    none: [API_SERVER, LOCAL_SOCKET],
    filter: UNREACHABLE_TERMS,
  },
  {
    id: 'registry.unreachable-lookup',
    class: 'registry-unreachable',
    cause: 'the node cannot resolve or reach the registry host',
    all: [UNREACHABLE, REGISTRY, /\bGet https|\bHead https|\bPost https|\bGet "https|\bHead "https|lookup /i],
    none: [API_SERVER, LOCAL_SOCKET],
    filter: UNREACHABLE_TERMS,
  },
  {
    id: 'registry.unavailable',
    class: 'registry-unreachable',
    cause: 'the container runtime reports the registry unavailable (CRI RegistryUnavailable)',
    // kubelet's evalCRIPullErr (pkg/kubelet/images/image_manager.go): "image pull failed for <image> because the
    // registry is unavailable[: <detail>]", the detail (and so the network error) optional.
    all: [/because the registry is unavailable|RegistryUnavailable/],
    filter: ['vailable'],
  },
  {
    id: 'runtime.not-responding',
    class: 'runtime-failure',
    cause:
      'kubelet reports the container runtime down or its pod lifecycle events stale (PLEG): the node stops starting pods',
    // Only a stale PLEG ("last seen active … ago"); "pleg has yet to be successful" is every kubelet's first seconds.
    // kubelet's runtime state wraps the PLEG check as "PLEG is not healthy: <why>" (kubelet/runtime.go); pastes cut
    // the reason off, so the wrapper alone counts unless it says the first relist is still pending.
    all: [/pleg was last seen active|container runtime is down|RuntimeReady=false|PLEG is not healthy/i],
    none: [/pleg has yet to be successful/i],
    // kubelet reports a down runtime in its KubeletNotReady condition and next to the stale PLEG; the wrapper cut from
    // its reason arrives in an error record ("Error updating node status" err="PLEG is not healthy").
    filter: ['pleg', 'NotReady', 'ot ready', 'rror'],
  },
  {
    id: 'runtime.daemon-unreachable',
    class: 'runtime-failure',
    cause: "kubelet cannot reach the container runtime's socket (the Docker daemon or containerd is not running)",
    // The Docker client kubelet's dockershim used answers an unreachable daemon with "Cannot connect to the Docker
    // daemon at <host>. Is the docker daemon running?" (moby client/errors.go, errConnectionFailed), and kubelet's
    // ContainerGC/ImageGC/CRI calls pass it on inside "rpc error"; a CRI dial to a dead containerd.sock says
    // "dial unix …containerd.sock: connect: connection refused". CI jobs print the Docker sentence alone, so a
    // kubelet or CRI context is required.
    all: [
      /Cannot connect to the Docker daemon|containerd\.sock: connect: connection refused|dockershim\.sock: connect: connection refused|docker\.sock: connect: connection refused|crio\.sock: connect: connection refused/i,
      /ContainerGCFailed|ImageGCFailed|kubelet|rpc error|RunPodSandbox|PullImage|ListPodSandbox|ListContainers|runtime service/i,
    ],
    filter: ['ailed', 'rror'],
  },
  {
    id: 'runtime.sandbox-timeout',
    class: 'runtime-failure',
    cause: 'the container runtime did not create the pod sandbox or container in time (CRI deadline exceeded)',
    all: [
      /create pod sandbox|RunPodSandbox|create sandbox for pod|CreatePodSandbox|CreateContainer|create container|StartContainer|runContainer|container start failed|Error syncing pod/i,
      /DeadlineExceeded|context deadline exceeded/i,
    ],
    // kubelet's pod worker reports the CRI call that timed out ("Error syncing pod …, skipping: rpc error: code =
    // DeadlineExceeded"); stopping and killing are teardown, which the corpus reads as no failure to start.
    none: [/KillPodSandbox|KillContainer|StopContainer|StopPodSandbox/i],
    filter: ['xceed'],
  },
  {
    id: 'runtime.create-timeout',
    class: 'runtime-failure',
    cause:
      'the container runtime did not create or start the container in time (kubelet: Error: context deadline exceeded)',
    // kubelet's FailedToCreateContainer event carries the CRI status message alone; pull failures say ErrImagePull.
    all: [/Error: context deadline exceeded/],
    filter: ['xceed'],
  },
  {
    id: 'runtime.sandbox-failed',
    class: 'runtime-failure',
    cause: 'the runtime failed to create the pod sandbox for a reason no more specific signature names',
    // Last among sandbox signatures: network, IP, pause-image and PID causes of the same event come first.
    all: [
      /Failed to create pod sandbox|Failed create pod sandbox|FailedCreatePodSandBox|CreatePodSandbox for pod|RunPodSandbox from runtime service failed|failed to start sandbox/i,
    ],
    filter: ['ailed'],
  },
  {
    id: 'image.not-found',
    class: 'image-not-found',
    cause: 'the image name or tag does not exist in the registry',
    // The program is not the context: dockerd logs "not found" for sandboxes and containers it tears down or creates
    // (a container's create finds no local image and the client pulls it), but its image pulls (POST /images/create)
    // are pulls. containerd's resolver ("failed to resolve reference", the ECS agent's "failed to resolve ref") names
    // only the reference, which nerdctl and ctr print as is.
    all: [NOT_FOUND, /pull|image|registry|manifest|repository|docker\.io|\/v2\/|resolve reference|resolve ref /i],
    none: [
      /Handler for POST \/containers\/|Handler for POST \/v1\.\d\/containers\/|Handler for POST \/v1\.\d\d\/containers\/|Handler for GET|Handler for DELETE|No sandbox for pod can be found|container not found|pod not found|ContainerStatus|ExecSync/i,
      // containerd's own content store lost a blob it had (metadata/content.go "content digest <d>: not found", read
      // by the unpacker "failed to get reader from content store"): the node's store, not the registry's answer.
      /content digest sha256:|failed to get reader from content store/,
      // kubelet's warning that a listed imagePullSecret does not exist names a secret not found, not the image: the
      // pull is still tried (kubelet_pods.go "Unable to retrieve pull secret …", event FailedToRetrieveImagePullSecret).
      /Unable to retrieve pull secret|Unable to retrieve some image pull secrets|FailedToRetrieveImagePullSecret/i,
    ],
    // 'Found' also covers NotFound and the HTTP status text "404 Not Found" (case-sensitive terms).
    filter: ['unknown', 'not exist', 'ot found', 'Found'],
  },
  {
    id: 'image.invalid-name',
    class: 'image-not-found',
    cause: 'the image reference is not a valid name (kubelet InvalidImageName): no registry can have it',
    // kubelet's EnsureImageExists (pkg/kubelet/images/image_manager.go): "Failed to apply default image tag %q: %v" with
    // the reference parser's "couldn't parse image reference" / "invalid reference format", and the InvalidImageName
    // waiting reason; only where an error is reported.
    all: [/Failed to apply default image tag|InvalidImageName|couldn't parse image reference/, /rror|ailed/],
    filter: ['rror', 'ailed'],
  },
  {
    id: 'image.pull-backoff',
    class: 'image-pull-failed',
    cause: 'the image could not be pulled (no cause in this line)',
    // dockerd's puller storing a layer it fetched ("failed to register layer: …", distribution/pull_v2.go): a full disk
    // is disk-full first; any other reason (a blob that is no tar) leaves the pull failed without a class of its own.
    // podman and CRI-O's image library say "unable to pull <ref>: …" before the cause, which may follow on other lines.
    all: [
      /Back-off pulling image|ErrImagePull|ImagePullBackOff|Failed to pull image|failed to pull and unpack image|image pull failed|Error while pulling|Error pulling|failed pulling image|Failed to pull|failing to pull|CannotPullContainerError|pull QPS|failed to register layer|unable to pull/i,
    ],
    filter: ['ailed', 'rror', 'ErrImagePull', 'BackOff', 'Back-off', 'ailing', 'xceed'],
  },
];
