import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/classifier.js';

/**
 * Causes added from the emitting programs' own format strings (kubelet node conditions and eviction
 * messages, the Go runtime's newosproc, glibc/bash fork errors, the aws-cni plugin's cni.go, ipamd,
 * containerd's CRI server, nodeadm), each with a look-alike that shares its words but not its cause.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe('PID exhaustion by any wording of the kernel refusing a new task', () => {
  it('reads ENOSPC from pthread_create/fork as PIDs, a full filesystem as disk', () => {
    expect(classOf('runtime/cgo: pthread_create failed: No space left on device')).toBe('pid-exhaustion');
    expect(classOf('bash: fork: retry: No space left on device')).toBe('pid-exhaustion');
    expect(classOf('write /var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db: no space left on device')).toBe(
      'disk-full',
    );
  });

  it('takes errno=11 (EAGAIN) from the Go runtime, not errno=12 (ENOMEM)', () => {
    expect(classOf('runtime: failed to create new OS thread (have 12 already; errno=11)')).toBe('pid-exhaustion');
    expect(classOf('runtime: failed to create new OS thread (have 12 already; errno=12)')).toBe('unknown');
  });

  it("reads kubelet's eviction for the pids signal", () => {
    expect(classOf('The node was low on resource: pids. Threshold quantity: 3276, available: 2904.')).toBe(
      'pid-exhaustion',
    );
  });
});

describe('disk pressure as kubelet reports it', () => {
  it('is disk-full for the condition, its event and its eviction; never for "no disk pressure"', () => {
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasDiskPressure')).toBe('disk-full');
    expect(classOf('The node had condition: [DiskPressure]. ')).toBe('disk-full');
    expect(
      classOf('DiskPressure True Mon, 30 Nov 2026 10:00:00 +0000 KubeletHasDiskPressure kubelet has disk pressure'),
    ).toBe('disk-full');
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasNoDiskPressure')).toBe('unknown');
    expect(
      classOf(
        'DiskPressure False Mon, 30 Nov 2026 10:00:00 +0000 KubeletHasNoDiskPressure kubelet has no disk pressure',
      ),
    ).toBe('unknown');
  });
});

describe('VPC CNI: the plugin and ipamd in their own words', () => {
  it("reads EC2's InvalidParameterValue capacity wording as subnet exhaustion", () => {
    expect(
      classOf(
        "Failed to CreateNetworkInterface InvalidParameterValue: There aren't sufficient free Ipv4 addresses or prefixes\n\tstatus code: 400 for subnet subnet-0402b2f2d20212916",
      ),
    ).toBe('ip-exhaustion');
  });

  it('reads the plugin failing to reach ipamd (its backend) as ipamd unavailable', () => {
    expect(classOf('add cmd: failed to connect to backend server: context deadline exceeded')).toBe(
      'ipamd-unavailable',
    );
    expect(
      classOf('Failed to check API server connectivity: the server has asked for the client to provide credentials'),
    ).toBe('ipamd-unavailable');
  });

  it('reads network-policy and veth setup failures of the ADD as CNI failures, not the info around them', () => {
    expect(
      classOf(
        'Failed to setup default network policy for Pod Name web-1 and NameSpace shop: GRPC returned - rpc error: code = Unavailable Network policy agent returned - <nil>',
      ),
    ).toBe('cni-failure');
    expect(
      classOf('add command: failed to setup network: SetupPodNetwork: failed to setup veth pair: link not found'),
    ).toBe('cni-failure');
    expect(classOf('NETWORK_POLICY_ENFORCING_MODE is not set')).toBe('unknown');
  });
});

describe('the runtime failing to create the sandbox or container', () => {
  it("reads kubelet's sandbox creation timeout and containerd's name reservation", () => {
    expect(
      classOf(
        '"Failed to create sandbox for pod" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" pod="default/web-1"',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'Error: failed to reserve container name "web_web-1_default_0": name "web_web-1_default_0" is reserved for "818fcfef09165d91ac8c86ed88714bb159a8358c3eca473ec07611a51d72b140"',
      ),
    ).toBe('runtime-failure');
  });

  it('reads a logfmt line whose error value journald cut at the first line of a multi-line runc error', () => {
    const cut =
      'Jan 05 15:42:55 node-1 containerd[5559]: time="2026-01-05T15:41:21.753486829Z" level=error msg="Failed to load sandbox" error="failed to load task: OCI runtime state failed: runc did not terminate successfully: runtime/cgo: pthread_create failed: Resource temporarily unavailable';
    expect(classify(cut).class).toBe('pid-exhaustion');
    // A well-formed info line of the same shape stays unknown.
    expect(
      classify(
        'Jan 05 15:42:55 node-1 containerd[5559]: time="2026-01-05T15:41:21Z" level=info msg="loading plugin" id=io.containerd.grpc.v1.cri',
      ).class,
    ).toBe('unknown');
  });
});

describe("the node's pause image archive", () => {
  it("reads nodeadm's pause archive errors as sandbox-image", () => {
    expect(classOf('checking pause image archive: stat /etc/eks/pause.tar: no such file or directory')).toBe(
      'sandbox-image',
    );
    expect(classOf('Successfully imported pause image into SOCI snapshotter')).toBe('unknown');
  });
});

describe('kubelet: a runtime that stopped answering', () => {
  it('reads a stale PLEG and a down runtime, not the PLEG that has yet to run at kubelet start', () => {
    expect(
      classOf(
        'skipping pod synchronization - [PLEG is not healthy: pleg was last seen active 4h19m47.3s ago; threshold is 3m0s]',
      ),
    ).toBe('runtime-failure');
    expect(classOf('KubeletNotReady container runtime is down')).toBe('runtime-failure');
    expect(
      classOf(
        '"Skipping pod synchronization" err="[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]"',
      ),
    ).toBe('unknown');
  });

  it("reads CRI-O's name reservation and kubelet's pod cgroup failure", () => {
    expect(classOf('Error: error reserving ctr name k8s_web_web-1_default_0 for id 3f2a: name is reserved')).toBe(
      'runtime-failure',
    );
    expect(
      classOf(
        'unable to ensure pod container exists: failed to create container for [kubepods burstable pod7c1d] : mkdir /sys/fs/cgroup/memory/kubepods/burstable/pod7c1d: cannot allocate memory',
      ),
    ).toBe('runtime-failure');
  });
});

describe('structured JSON records keep their error field', () => {
  it("joins kubelet's JSON `err` and zap's `error` to the message, as logfmt's msg and error", () => {
    const kubelet = JSON.stringify({
      ts: 1712221037.59,
      caller: 'kuberuntime/kuberuntime_manager.go:1166',
      msg: 'CreatePodSandbox for pod failed',
      v: 0,
      err: 'rpc error: code = Unknown desc = failed to setup network for sandbox "abc": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container',
      pod: 'default/web-1',
    });
    expect(classify(kubelet).class).toBe('ip-exhaustion');
    const zap = JSON.stringify({
      level: 'error',
      ts: '2026-01-01T00:00:00Z',
      caller: 'ipamd/ipamd.go:1',
      msg: 'Failed to increase pool size',
      error: 'InsufficientCidrBlocks: The specified subnet does not have enough free cidr blocks',
    });
    expect(classify(zap).class).toBe('cidr-fragmentation');
    expect(classify(JSON.stringify({ level: 'info', ts: 1, msg: 'Created VPC', id: 'vpc-0ea0' })).class).toBe(
      'unknown',
    );
  });
});

describe('image-not-found needs an image context, not the program that logs', () => {
  it("keeps dockerd's teardown 'not found' unknown and a registry's 'not found' image-not-found", () => {
    expect(
      classify(
        'Apr 27 20:19:50 node-1 dockerd[1044]: time="2026-04-27T20:19:50.549Z" level=error msg="error locating sandbox id 048aefc4: sandbox 048aefc4 not found"',
      ).class,
    ).toBe('unknown');
    expect(classOf('failed to resolve reference "docker.io/acme/web:v9": docker.io/acme/web:v9: not found')).toBe(
      'image-not-found',
    );
  });
});
