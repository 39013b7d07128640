import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * Pull and sandbox-image causes met in new field sources (test/fixtures/field/field-pull-2.jsonl), each
 * fixed by the program path that prints it, with the look-alike that must keep its class.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe("containerd's resolver: failed to do request", () => {
  // https://github.com/containerd/containerd/issues/11365 (the pasted line stops at the URL)
  it('reads a failed HTTP request while pulling as the registry path failing, whatever the wrapped error', () => {
    expect(
      classOf(
        'ctr: failed to copy: httpReadSeeker: failed open: failed to do request: Get "https://registry.example.com/v2/app/blobs/sha256:0f"',
      ),
    ).toBe('registry-unreachable');
  });

  it('keeps a certificate error inside the same request registry-tls', () => {
    expect(
      classOf(
        'failed to resolve reference "registry.example.com/app:1": failed to do request: Head "https://registry.example.com/v2/app/manifests/1": x509: certificate signed by unknown authority',
      ),
    ).toBe('registry-tls');
  });
});

describe("kubelet's pull progress deadline (dockershim)", () => {
  // https://github.com/kubernetes/kubernetes/pull/26677
  it('reads a pull cancelled for no progress as the registry path stalling', () => {
    expect(
      classOf(
        'E0601 18:48:29.026003   46185 kube_docker_client.go:274] Cancel pulling image "nginx:latest" because of no progress for 1m0s, latest progress: "89732b811e7f: Pulling fs layer "',
      ),
    ).toBe('registry-unreachable');
  });

  // https://github.com/kubernetes/kubernetes/pull/69141
  it('keeps the end of a pull that found the image up to date unknown', () => {
    expect(
      classOf(
        'I0822 15:31:12.895399    1018 kube_docker_client.go:348] Stop pulling image "registry.example.com/app:1": "Status: Image is up to date for registry.example.com/app:1"',
      ),
    ).toBe('unknown');
  });
});

describe("a remote snapshotter's blob fetch (SOCI)", () => {
  // https://github.com/awslabs/soci-snapshotter/issues/1148
  it("reads a refused blob as the registry's refusal and the token step before it as nothing", () => {
    expect(
      classOf(
        '{"error":"failed to refresh URL: status 403 Forbidden","key":"sha256:0f","level":"warning","msg":"failed to connect to blob"}',
      ),
    ).toBe('registry-auth');
    expect(classOf('{"level":"info","msg":"Received status code: 403 Forbidden. Authorizing..."}')).toBe('unknown');
  });
});

describe('the pause image that dockershim pulls inside RunPodSandbox', () => {
  // https://github.com/aws/amazon-vpc-cni-k8s/issues/917
  it("reads dockerd's pull error in a failed sandbox creation as the sandbox image, with no image named", () => {
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = error pulling image configuration: error parsing HTTP 403 response body: invalid character \'<\' looking for beginning of value: "<Error><Code>AccessDenied</Code></Error>"',
      ),
    ).toBe('sandbox-image');
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = Error response from daemon: Get https://registry.example.com/v2/: net/http: TLS handshake timeout',
      ),
    ).toBe('sandbox-image');
  });

  it("keeps an application image's pull and a sandbox's network failure in their own classes", () => {
    expect(
      classOf(
        'Failed to pull image "registry.example.com/app:1": rpc error: code = Unknown desc = Error response from daemon: Get https://registry.example.com/v2/app/manifests/1: no basic auth credentials',
      ),
    ).toBe('registry-auth');
    expect(
      classOf(
        'Failed create pod sandbox: rpc error: code = Unknown desc = NetworkPlugin cni failed to set up pod "web-0_default" network: add cmd: failed to assign an IP address to container',
      ),
    ).toBe('ip-exhaustion');
  });
});

describe("containerd's reference resolution names only the reference", () => {
  // https://peng.fyi/post/mysterious-image-pull-failure-wait-for-interface-ready (nerdctl on a node)
  it('reads a reference the registry does not have as image-not-found', () => {
    expect(
      classOf(
        'FATA[0031] failed to resolve reference "111122223333.dkr.ecr.us-west-2.amazonaws.com/app@sha256:1db8": 111122223333.dkr.ecr.us-west-2.amazonaws.com/app@sha256:1db8: not found',
      ),
    ).toBe('image-not-found');
  });
});

describe('a pull whose context is cancelled', () => {
  // https://7thzero.com/blog/limiting-outbound-egress-traffic-while-using-aws-fargate-and-ecr
  it('reads a cancelled pull as the registry path failing, a cancelled health check as nothing', () => {
    expect(classOf('CannotPullContainerError: context canceled.')).toBe('registry-unreachable');
    expect(classOf('ERRO[2020-01-06T17:31:41.470872098+08:00] active check failed  error="context canceled"')).toBe(
      'unknown',
    );
  });
});

describe('an image named like the API server', () => {
  // https://blog.csdn.net/chenruoshui/article/details/105684023 (kubeadm preflight through dockerd)
  it('reads a timeout pulling kube-apiserver as the registry path, a timeout reaching the apiserver as no pull', () => {
    expect(
      classOf(
        '[ERROR ImagePull]: failed to pull image k8s.gcr.io/kube-apiserver:v1.18.2: output: Error response from daemon: Get https://k8s.gcr.io/v2/: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers) , error: exit status 1',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf('Error response from daemon: error communicating with apiserver: dial tcp 10.100.0.1:443: i/o timeout'),
    ).not.toBe('registry-unreachable');
  });
});

describe("the ECS agent's ECR token for a task", () => {
  // https://docs.mewrite.jp/errors/aws/aws-ecs-cannotpullcontainererror
  it('reads a token it could not retrieve as registry-auth, and as unreachable when the network is the reason', () => {
    expect(
      classOf(
        'ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve ecr registry auth',
      ),
    ).toBe('registry-auth');
    expect(
      classOf(
        'ResourceInitializationError: unable to pull secrets or registry auth: execution resource retrieval failed: unable to retrieve ecr registry auth: service call has been retried 3 time(s): RequestError: send request failed caused by: Post "https://api.ecr.us-east-1.amazonaws.com/": dial tcp 10.0.0.5:443: i/o timeout',
      ),
    ).toBe('registry-unreachable');
  });
});

describe("containerd's own content store while unpacking", () => {
  // https://imroc.cc/kubernetes-troubleshooting/cases/runtime/pull-image-fail-in-high-version-containerd
  it("reads a blob the node's store cannot give the unpacker as runtime-failure, a registry's missing blob as image-not-found", () => {
    expect(
      classOf(
        'failed to pull and unpack image "docker.io/library/redis:2.8.23": failed to unpack image on snapshotter overlayfs: failed to extract layer sha256:4dca: failed to get reader from content store: content digest sha256:51f5: not found',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'failed to pull and unpack image "docker.io/library/redis:2.8.23": failed to copy: httpReadSeeker: failed open: content at https://registry-1.docker.io/v2/library/redis/blobs/sha256:51f5 not found: not found',
      ),
    ).toBe('image-not-found');
  });
});

describe('a kubectl describe event pasted without its age column', () => {
  // https://interviewstacks.com/stacks/kubernetes/observability-and-troubleshooting/how-do-you-debug-a-pod-stuck-in-imagepullbackoff-or-pending
  it('keeps the message whole, so the failed pull is still read', () => {
    expect(classOf('Warning Failed kubelet Failed to pull image "myapp:1.0.": rpc error: ...')).toBe(
      'image-pull-failed',
    );
    expect(classOf('Warning BackOff kubelet Back-off pulling image "myapp:1.0."')).toBe('image-pull-failed');
  });
});

describe("kubelet's PLEG check wrapper", () => {
  // https://devopsaitoolkit.com/blog/kubernetes-error-pleg-is-not-healthy/
  it('reads the wrapper cut from its reason as the runtime not responding, the first relist still pending as nothing', () => {
    expect(
      classOf(
        'E0628 11:47:03.901774 1823 kubelet_node_status.go:447] "Error updating node status, will retry" err="PLEG is not healthy"',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'I0628 11:40:01.000000 1823 kubelet.go:1820] "skipping pod synchronization" err="PLEG is not healthy: pleg has yet to be successful"',
      ),
    ).toBe('unknown');
  });
});

describe("systemd's PAM session child", () => {
  // https://yelogs.com/u/u_14529165/story/983b6c05-d8fa-424b-8b15-c53655d3fa92 (threads exhausted on the node)
  it('reads EAGAIN from the fork that holds a PAM session as PID exhaustion, a PAM module refusal as nothing', () => {
    expect(classOf('Nov 18 14:09:51 localhost systemd[8911]: PAM failed: Resource temporarily unavailable')).toBe(
      'pid-exhaustion',
    );
    expect(
      classOf(
        'Nov 18 14:09:51 localhost systemd[8911]: user@0.service: Failed to set up PAM session: Resource temporarily unavailable',
      ),
    ).toBe('pid-exhaustion');
    expect(classOf('Nov 18 14:09:51 localhost systemd[8911]: PAM failed: Authentication failure')).toBe('unknown');
  });
});

describe("dockerd's own image store", () => {
  // https://github.com/vllm-project/aibrix/issues/1120 (docker tag after a pull that found no platform)
  it('reads "No such image" as a local lookup, not a registry without the image', () => {
    expect(classOf('Error response from daemon: No such image: aibrix/runtime:v0.3.0-rc.2')).toBe('unknown');
    expect(
      classOf('Error response from daemon: manifest for aibrix/runtime:v0.3.0-rc.2 not found: manifest unknown'),
    ).toBe('image-not-found');
  });
});

describe("dockerd's older words for a manifest list without the node's platform", () => {
  // https://github.com/docker-library/httpd/issues/94
  it('reads "no supported platform found in manifest list" as image-platform', () => {
    expect(classOf('no supported platform found in manifest list')).toBe('image-platform');
  });
});

describe("the eviction manager's node-level reclaim", () => {
  // https://github.com/kubernetes/kubernetes/issues/44951
  it('reads a failed attempt to reduce imagefs pressure as disk-full, image GC starting as nothing', () => {
    expect(
      classOf(
        'E0426 09:39:14.346813    1288 eviction_manager.go:390] eviction manager: unexpected error when attempting to reduce imagefs pressure: wanted to free 9223372036854775807, but freed 14081525058 space with errors in image deletion',
      ),
    ).toBe('disk-full');
    expect(
      classOf(
        'I1010 09:07:23.919748       1 image_gc_manager.go:300] [imageGCManager]: Disk usage on image filesystem is at 97% which is over the high threshold (85%). Trying to free 11104533708 bytes down to the low threshold (80%).',
      ),
    ).toBe('unknown');
  });
});

describe("a proxy's or registry front's 502 in any spelling", () => {
  // https://github.com/rpardini/docker-registry-proxy/issues/136 and https://github.com/cri-o/cri-o/issues/3863
  it('reads Bad Gateway without its code or with it in brackets as the registry path failing', () => {
    expect(
      classOf(
        'Failed to pull image "registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.1.1": rpc error: code = Unknown desc = Error response from daemon: Get "https://registry.k8s.io/v2/": Bad Gateway',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf(
        'FATA[0001] pulling image failed: rpc error: code = Unknown desc = error pinging docker registry 10.0.0.5:5000: invalid status code from registry 502 (Bad Gateway)',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('GET /healthz 502 Bad Gateway upstream=app:8080')).toBe('unknown');
  });
});

describe("a remote snapshotter's own layer fetch (SOCI)", () => {
  // https://github.com/awslabs/soci-snapshotter/issues/1084
  it('reads a layer request to the registry given up on as the registry path failing', () => {
    expect(
      classOf(
        '{"error":"unable to create remote fetcher: failed to redirect: request to registry failed: unknown \\"unknown\\": giving up request after 1 attempt(s): context canceled (host \\"111111.dkr.ecr.eu-west-1.amazonaws.com\\"): failed to refresh connection","level":"warning","msg":"layer is unavailable"}',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('{"level":"info","msg":"creating remote fetcher for layer sha256:1c74"}')).toBe('unknown');
  });
});

describe("dockerd's layer store during a pull", () => {
  // https://github.com/helm/chartmuseum/issues/572 (an SBOM tag pulled as an image)
  it('reads a layer it could not register as a failed pull, and as disk-full when the disk is the reason', () => {
    expect(
      classOf('failed to register layer: Error processing tar file(exit status 1): archive/tar: invalid tar header'),
    ).toBe('image-pull-failed');
    expect(classOf('failed to register layer: no space left on device')).toBe('disk-full');
  });
});

describe("podman's pull summary", () => {
  // https://github.com/containers/image/issues/1145
  it('reads "unable to pull" with its cause on the next line as a failed pull', () => {
    expect(classOf('Error: unable to pull octoprint/octoprint: 1 error occurred:')).toBe('image-pull-failed');
    expect(classOf('Trying to pull docker.io/octoprint/octoprint...')).toBe('unknown');
  });
});
