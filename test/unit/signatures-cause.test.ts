import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/detect/classifier.js';
import { poolFull } from '../../lambdas/core/detect/signatures.js';

/**
 * Signatures generalise by cause: the strings below follow the format strings the components print
 * (amazon-vpc-cni-k8s ipamd/awsutils, runc, the JVM, glibc), with values a node would fill in, and
 * each has a look-alike with the same words that is not that cause.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe('ipamd pool statistics at an assignment', () => {
  it('is exhaustion only when every IP of the pool is assigned (both log formats)', () => {
    expect(poolFull('AssignPodIPv4Address: IP address pool stats: total 14, assigned 14')).toBe(true);
    expect(poolFull('AssignIPv4Address: IP address pool stats: total: 0, assigned 0')).toBe(true);
    expect(poolFull('AssignPodIPv4Address: IP address pool stats: total 14, assigned 13')).toBe(false);
    expect(poolFull('AssignPodIPv4Address: IP address pool stats: total 14')).toBe(false);
    expect(classOf('AssignPodIPv4Address: IP address pool stats: total 28, assigned 28')).toBe('ip-exhaustion');
    expect(classOf('AssignPodIPv4Address: IP address pool stats: total 28, assigned 27')).toBe('unknown');
    // Releasing an IP prints the same stats; it is never an assignment that can fail.
    expect(classOf('UnassignPodIPAddress: IP address pool stats: total 28, assigned 28, sandbox aws-cni/x/eth0')).toBe(
      'unknown',
    );
  });
});

describe('IP exhaustion by any IPAM', () => {
  it('reads host-local and ipamd wordings of an empty range', () => {
    expect(classOf('failed to allocate for range 0: no IP addresses available in range set: 10.1.0.1-10.1.0.62')).toBe(
      'ip-exhaustion',
    );
    // One full ENI on ipamd's walk is not an empty pool (signatures-vpc-cni.test.ts): the walk's end is.
    expect(classOf('AssignPodIPv4Address: ENI eni-0a1b2c3d4e5f60718 does not have available addresses')).toBe(
      'unknown',
    );
    expect(classOf('Skipping ENI allocation as the max ENI limit is already reached for the instance')).toBe(
      'ip-exhaustion',
    );
  });
});

describe('CNI permissions', () => {
  it('reads the aws-node event and missing credentials of the CNI, not of other workloads', () => {
    expect(
      classOf(
        'Unauthorized operation: failed to call ec2:AssignPrivateIpAddresses due to missing permissions. Please refer https://github.com/aws/amazon-vpc-cni-k8s/blob/master/docs/iam-policy.md to attach relevant policy to IAM role',
      ),
    ).toBe('cni-permissions');
    expect(
      classOf(
        'ipamd init: failed to retrieve attached ENIs info: WebIdentityErr: failed to retrieve credentials caused by: InvalidIdentityToken: No OpenIDConnect provider found in your account',
      ),
    ).toBe('cni-permissions');
    expect(
      classOf(
        'Could not initialize EKS CloudWatch client: WebIdentityErr: failed to retrieve credentials caused by: InvalidIdentityToken: No OpenIDConnect provider found in your account',
      ),
    ).not.toBe('cni-permissions');
  });
});

describe('PID and thread exhaustion', () => {
  it('reads EAGAIN from thread and process creation in any runtime', () => {
    for (const m of [
      'Exception in thread "main" java.lang.OutOfMemoryError: unable to create new native thread',
      'java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached',
      "RuntimeError: can't start new thread",
      'Failed to create thread: Resource temporarily unavailable (11)',
      'java.io.IOException: Cannot run program "git": error=11, Resource temporarily unavailable',
    ])
      expect(classOf(m), m).toBe('pid-exhaustion');
  });

  it('does not read EAGAIN of a lock or a socket, or a bad pids.max setting, as PID exhaustion', () => {
    expect(classOf('Another app is currently holding the xtables lock; resource temporarily unavailable')).not.toBe(
      'pid-exhaustion',
    );
    expect(classOf('Container creation error: writing file `pids.max`: Invalid argument')).toBe('runtime-failure');
  });
});

describe('runtime failures', () => {
  it('reads runc and shim failures and an unreachable runtime socket', () => {
    for (const m of [
      "runc create failed: unable to start container process: can't get final child's PID from pipe: EOF",
      'failed to start containerd task "6e3e": ttrpc: closed: unknown',
      'ListPodSandbox failed: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial unix /run/containerd/containerd.sock: connect: connection refused"',
    ])
      expect(classOf(m), m).toBe('runtime-failure');
    expect(classOf('Connecting to runtime endpoint unix:///run/containerd/containerd.sock')).toBe('unknown');
  });
});

describe('image platform and registry availability', () => {
  it('reads the Docker platform warning and the Windows host-OS mismatch as image-platform', () => {
    expect(
      classOf(
        "WARNING: The requested image's platform (linux/amd64) does not match the detected host platform (linux/arm64/v8) and no specific platform was requested",
      ),
    ).toBe('image-platform');
    expect(
      classOf(
        'failed to create containerd task: hcs::CreateComputeSystem: The operating system of the container does not match the operating system of the host.',
      ),
    ).toBe('image-platform');
  });

  it('reads a 5xx from the registry during a pull as unreachable, not elsewhere', () => {
    expect(
      classOf(
        'Failed to pull image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1": rpc error: code = Unknown desc = failed to resolve reference: unexpected status code 500 Internal Server Error',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('GET /healthz 500 Internal Server Error')).toBe('unknown');
  });
});

describe('sandbox image, ipamd and runtime wordings', () => {
  it('reads any pause reference, whatever punctuation follows it, and the kubelet flag naming it', () => {
    expect(
      classOf(
        'failed to pull image "registry.k8s.io/pause:3.9", failed to do request: Head "https://registry.k8s.io/v2/pause/manifests/3.9": dial tcp: i/o timeout',
      ),
    ).toBe('sandbox-image');
    expect(classOf('error pulling k8s.gcr.io/pause, registry returned 401 Unauthorized')).toBe('sandbox-image');
    expect(classOf('Failed to pull image "example.com/team/pauser:1": 401 Unauthorized')).toBe('registry-auth');
  });

  it('reads an AddNetwork call that cannot reach ipamd as ipamd-unavailable, an empty pool through it as exhaustion', () => {
    expect(
      classOf(
        'add cmd: Error received from AddNetwork gRPC call for containerID 3f2a: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing dial tcp 127.0.0.1:50052: connect: connection refused"',
      ),
    ).toBe('ipamd-unavailable');
    expect(
      classOf(
        'add cmd: Error received from AddNetwork gRPC call for containerID 3f2a: rpc error: code = Unknown desc = AssignPodIPv4Address: no available IP/Prefix addresses',
      ),
    ).toBe('ip-exhaustion');
  });

  it('reads EAGAIN of a spawn as PID exhaustion and EAGAIN of a socket as not', () => {
    expect(classOf('Error: spawn EAGAIN')).toBe('pid-exhaustion');
    expect(classOf('read unix @->/run/containerd/containerd.sock: read: EAGAIN')).not.toBe('pid-exhaustion');
  });
});

describe('a wrapper is not a cause', () => {
  it('reads a registry refusal inside a shim error as registry-auth, a plain shim failure as runtime-failure', () => {
    expect(
      classOf(
        'failed to create shim task: obtaining and verifying image: obtaining descriptor: GET https://registry.example.com/token?scope=repository%3Ateam%2Fapp%3Apull: UNAUTHORIZED: authentication required',
      ),
    ).toBe('registry-auth');
    expect(classOf('failed to create shim task: ttrpc: closed: unknown')).toBe('runtime-failure');
  });
});
