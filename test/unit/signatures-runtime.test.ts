import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * The container runtime failing a pod: kubelet's CRI calls and events, containerd's CRI server, CRI-O,
 * dockerd, runc and crun, and the configuration dumps they print at start that are not failures. Each with
 * a look-alike that shares its words but not its cause.
 */
const classOf = (m: string) => classifyMessage(m).class;

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

describe('the runtime timing out a container', () => {
  it("reads kubelet's CreateContainer/StartContainer deadline and its bare event, not a pull's", () => {
    expect(
      classOf(
        '"CreateContainer in sandbox from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" podSandboxID="3f2a"',
      ),
    ).toBe('runtime-failure');
    expect(classOf('Warning  Failed  2m  kubelet  Error: context deadline exceeded')).toBe('runtime-failure');
    expect(
      classOf('container start failed: RunContainerError: runContainer: operation timeout: context deadline exceeded'),
    ).toBe('runtime-failure');
    expect(classOf('Failed to create container with error: rpc error: code = 4 desc = context deadline exceeded')).toBe(
      'runtime-failure',
    );
    expect(
      classOf(
        'Failed to pull image "acme/web:v1": rpc error: code = DeadlineExceeded desc = failed to pull and unpack image "docker.io/acme/web:v1": context deadline exceeded',
      ),
    ).not.toBe('runtime-failure');
  });
});

describe('a sandbox the runtime could not create, for a reason no other signature names', () => {
  it('is runtime-failure, after the network, IP, pause-image and PID causes of the same event', () => {
    expect(
      classOf(
        'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "kata" is configured',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create sandbox: mkdir /run/containerd/io.containerd.grpc.v1.cri/sandboxes/3f2a: read-only file system',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "3f2a": plugin type="aws-cni" name="aws-cni" failed (add): add cmd: failed to assign an IP address to container',
      ),
    ).toBe('ip-exhaustion');
    expect(classOf('Normal  SandboxChanged  2m  kubelet  Pod sandbox changed, it will be killed and re-created.')).toBe(
      'unknown',
    );
  });
});

describe('configuration dumps at start are not failures', () => {
  it("keeps containerd's CRI config (pause image next to timeouts) and kubelet's eviction thresholds unknown", () => {
    expect(
      classify(
        'Nov 30 10:00:00 ip-10-0-1-2 containerd[2840]: time="2026-11-30T10:00:00Z" level=info msg="Start cri plugin with config {PluginConfig:{ContainerdConfig:{Snapshotter:overlayfs DefaultRuntimeName:runc} SandboxImage:602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5 StreamIdleTimeout:4h0m0s ImagePullProgressTimeout:5m0s}}"',
      ).class,
    ).toBe('unknown');
    expect(
      classify(
        'I1130 10:00:00.925236    3412 container_manager_linux.go:270] "Creating Container Manager object based on Node Config" nodeConfig={"HardEvictionThresholds":[{"Signal":"nodefs.available","Operator":"LessThan","Value":{"Quantity":null,"Percentage":0.1},"GracePeriod":0,"MinReclaim":null}]}',
      ).class,
    ).toBe('unknown');
    expect(classOf('eviction manager: attempting to reclaim resourceName="nodefs"')).toBe('disk-full');
    expect(classOf('The node was low on resource: inodes. Threshold quantity: 32768, available: 1024.')).toBe(
      'disk-full',
    );
  });
});

describe("containerd's own strings (internal/cri/server)", () => {
  it('reads the removal of the sandbox image as a sandbox-image failure, other removals as housekeeping', () => {
    expect(
      classOf(
        'time="2021-11-01T02:49:16.485649003Z" level=info msg="ImageDelete event &ImageDelete{Name:k8s.gcr.io/pause:3.5,XXX_unrecognized:[],}"',
      ),
    ).toBe('sandbox-image');
    expect(classOf('ImageDelete event name:"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5"')).toBe(
      'sandbox-image',
    );
    expect(classOf('ImageDelete event name:"docker.io/library/nginx:1.25"')).toBe('unknown');
    expect(classOf('ImageCreate event name:"registry.k8s.io/pause:3.9"')).toBe('unknown');
  });

  it('reads task waits, container loggers and the sandbox-name lease failing as the runtime failing', () => {
    for (const m of [
      'failed to wait for containerd task: ttrpc: closed',
      'failed to create container loggers: failed to open log file',
      'failed to create lease for sandbox name "web-1_default_9b1f_0": context deadline exceeded',
    ])
      expect(classOf(m), m).toBe('runtime-failure');
  });
});

describe('container runtimes starting or probing', () => {
  it("reads dockerd's shim error as the runtime failing, podman's probe of a runtime not installed as noise", () => {
    expect(classOf('docker: Error response from daemon: shim error: open pid: no such file or directory.')).toBe(
      'runtime-failure',
    );
    expect(
      classOf(
        'DEBU[0000] Configured OCI runtime kata initialization failed: no valid executable found for OCI runtime kata: invalid argument',
      ),
    ).toBe('unknown');
    expect(classOf('Error: OCI runtime error: crun: creating cgroup directory: No such file or directory')).toBe(
      'runtime-failure',
    );
  });
});

describe("kubelet's pod worker on a CRI deadline", () => {
  it('reads a sync that timed out in the runtime as a runtime failure, a teardown that timed out as noise', () => {
    expect(
      classOf(
        'E0408 07:44:29.444932    6105 pod_workers.go:191] Error syncing pod 612add33 ("web-1_default(612add33)"), skipping: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      ),
    ).toBe('runtime-failure');
    expect(
      classOf(
        'Error syncing pod 612add33 ("web-1_default(612add33)"), skipping: failed to "KillPodSandbox" for "612add33" with KillPodSandboxError: "rpc error: code = DeadlineExceeded desc = context deadline exceeded"',
      ),
    ).toBe('unknown');
  });
});
