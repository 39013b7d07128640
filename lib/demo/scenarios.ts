/**
 * Demo scenarios: the events a real cluster emits for each seed failure. Names are a contract
 * (issue #7). Lines are real field strings (see test/fixtures/corpus.jsonl for their sources).
 */
export type NodeAction = 'repair-al2023' | 'repair-al2' | 'none';

export interface Scenario {
  readonly name: string;
  readonly title: string;
  /** Node log lines as Container Insights / ipamd deliver them (each repeated to make a storm). */
  readonly lines: readonly string[];
  /** EventBridge CloudTrail events (file names in test/fixtures/events). */
  readonly cloudTrail?: readonly string[];
  readonly repeat: number;
  readonly expectedClass: string;
  readonly nodeAction: NodeAction;
}

const NODE = 'ip-10-0-12-34.eu-west-1.compute.internal';
const ci = (message: string, unit = 'kubelet') =>
  JSON.stringify({
    hostname: NODE,
    systemd_unit: `${unit}.service`,
    ec2_instance_id: 'i-0a1b2c3d4e5f60718',
    az: 'eu-west-1a',
    message,
  });

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'pause-image-deleted-al2023',
    title: 'AL2023 node: the baked pause image was removed; every new pod sits in ContainerCreating',
    lines: [
      ci(
        'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = NotFound desc = failed to get sandbox image \\"localhost/kubernetes/pause\\": failed to pull image \\"localhost/kubernetes/pause\\": failed to pull and unpack image \\"localhost/kubernetes/pause:latest\\": failed to resolve reference \\"localhost/kubernetes/pause:latest\\": failed to do request: Head \\"https://localhost/v2/kubernetes/pause/manifests/latest\\": dial tcp 127.0.0.1:443: connect: connection refused" pod="default/web-7d9c8-x2k4q"',
      ),
    ],
    repeat: 400,
    expectedClass: 'sandbox-image',
    nodeAction: 'repair-al2023',
  },
  {
    name: 'pause-image-gc-401',
    title: 'AL2 node: image GC removed the ECR pause image; containerd re-pulls it without credentials (401)',
    lines: [
      ci(
        'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to get sandbox image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": failed to pull image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": failed to pull and unpack image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": failed to resolve reference \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": pulling from host 602401143452.dkr.ecr.eu-west-1.amazonaws.com failed with status code [manifests 3.5]: 401 Unauthorized" pod="payments/api-6c8d9f7b5-x2k4q"',
      ),
    ],
    repeat: 250,
    expectedClass: 'sandbox-image',
    nodeAction: 'repair-al2',
  },
  {
    name: 'pid-exhaustion',
    title: 'Node out of PIDs: the shim cannot fork',
    lines: [
      ci('runtime: failed to create new OS thread (have 2 already; errno=11)'),
      ci(
        'E1129 10:00:02.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to start sandbox container for pod \\"worker-5\\": failed to start shim: fork/exec /usr/bin/containerd-shim-runc-v2: resource temporarily unavailable: unknown"',
      ),
    ],
    repeat: 120,
    expectedClass: 'pid-exhaustion',
    nodeAction: 'none',
  },
  {
    name: 'insufficient-cidr-blocks',
    title: 'Prefix delegation: the subnet has free IPs but no free aligned /28',
    lines: [
      '{"level":"error","ts":"2026-11-29T10:00:01.330Z","caller":"ipamd/ipamd.go:874","msg":"Failed to increase pool size due to not able to allocate ENI AllocENI: error attaching ENI: allocate ENI: failed to create ENI: InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks to satisfy the request. status code: 400"}',
    ],
    cloudTrail: ['assign-prefix-insufficient-cidr.json'],
    repeat: 60,
    expectedClass: 'cidr-fragmentation',
    nodeAction: 'none',
  },
  {
    name: 'ipamd-unreachable',
    title: 'aws-node not running: the CNI plugin cannot dial ipamd',
    lines: [
      ci(
        'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox \\"c3d4\\": plugin type=\\"aws-cni\\" name=\\"aws-cni\\" failed (add): add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = connection error: desc = \\"transport: Error while dialing: dial unix /var/run/aws-node/ipamd.sock: connect: no such file or directory\\""',
      ),
    ],
    repeat: 80,
    expectedClass: 'ipamd-unavailable',
    nodeAction: 'none',
  },
  {
    name: 'image-tag-typo',
    title: 'Deployment points at a tag that does not exist',
    lines: [
      ci(
        'E1129 10:00:01.000001    3412 log.go:32] "PullImage from image service failed" err="rpc error: code = NotFound desc = failed to pull and unpack image \\"docker.io/library/nginx:latestttt\\": failed to resolve reference \\"docker.io/library/nginx:latestttt\\": docker.io/library/nginx:latestttt: not found" image="nginx:latestttt"',
      ),
    ],
    repeat: 40,
    expectedClass: 'image-not-found',
    nodeAction: 'none',
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
    expectedClass: 'rate-limited',
    nodeAction: 'none',
  },
  {
    name: 'pause-401-missing-ecr-policy',
    title: 'Pause image 401 after AmazonEC2ContainerRegistryReadOnly was detached from the node role',
    lines: [
      ci(
        'E1129 10:00:01.000001    3412 log.go:32] "RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to get sandbox image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": failed to pull image \\"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5\\": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials" pod="default/web-7d9c8-x2k4q"',
      ),
    ],
    cloudTrail: ['detach-ecr-readonly.json'],
    repeat: 90,
    expectedClass: 'sandbox-image',
    nodeAction: 'none',
  },
];
