import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/classifier.js';

/**
 * More causes from the emitting programs: bash retries fork only on EAGAIN ("fork: retry:" whatever
 * strerror follows), kubelet's CRI calls and its FailedToCreateContainer event, Go's Windows socket
 * errors, EC2's AuthFailure, and the names a pause image goes by. Each with a look-alike.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe('PID exhaustion through bash', () => {
  it('reads "fork: retry:" as EAGAIN from fork whatever errno text bash prints after it', () => {
    expect(classOf('-bash: fork: retry: No child processes')).toBe('pid-exhaustion');
    expect(classOf('bash: fork: retry: Resource temporarily unavailable')).toBe('pid-exhaustion');
    expect(classOf('retry: waiting 5s before the next fetch')).toBe('unknown');
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

describe('registry network errors as Windows nodes word them', () => {
  it('reads connectex / wsarecv while pulling as unreachable, not outside a pull', () => {
    expect(
      classOf(
        'Failed to pull image "mcr.microsoft.com/windows/servercore:ltsc2019": failed to do request: Head "https://mcr.microsoft.com/v2/windows/servercore/manifests/ltsc2019": read tcp 10.0.1.5:49710->204.79.197.219:443: wsarecv: An existing connection was forcibly closed by the remote host.',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('wsarecv: An existing connection was forcibly closed by the remote host.')).toBe('unknown');
  });
});

describe('the VPC CNI with credentials EC2 rejects', () => {
  it("reads EC2's AuthFailure for ipamd's calls as CNI permissions, not for other clients", () => {
    expect(
      classOf(
        'Failed to call ec2:DescribeNetworkInterfaces for [eni-0b70601dc9523f511]: AuthFailure: AWS was not able to validate the provided access credentials',
      ),
    ).toBe('cni-permissions');
    expect(classOf('aws s3 ls failed: AuthFailure: AWS was not able to validate the provided access credentials')).toBe(
      'unknown',
    );
  });
});

describe('a pause image by any name', () => {
  it('reads the bare "pause" image, the kubelet flag spellings and containerd/nodeadm sandboxImage', () => {
    expect(
      classOf(
        'failed pulling image "pause": Error response from daemon: pull access denied for pause, repository does not exist or may require \'docker login\'',
      ),
    ).toBe('sandbox-image');
    expect(
      classOf('failed to resolve sandboxImage 602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause: unauthorized'),
    ).toBe('sandbox-image');
    expect(classOf('Image "pause" already present on machine')).toBe('unknown');
  });
});

describe('IP exhaustion in another IPAM (Calico)', () => {
  it('reads Calico IPAM handing out nothing, not its healthy block affinity lines', () => {
    expect(classOf('Unable to autoassign an address - pools are likely exhausted. type="ipipTunnelAddress"')).toBe(
      'ip-exhaustion',
    );
    expect(
      classOf('failed to setup network for sandbox "3f2a": failed to request 1 IPv4 addresses. IPAM allocated only 0'),
    ).toBe('ip-exhaustion');
    expect(classOf('Trying affinity for 10.244.1.0/26 host="node-1"')).toBe('unknown');
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

describe('registry-auth needs the image-credential path, not any AWS SDK client without credentials', () => {
  it("reads kubelet's ECR credential provider, not cert-manager's or the autoscaler's", () => {
    expect(
      classOf('while getting AWS credentials NoCredentialProviders: no valid providers in chain. Deprecated.'),
    ).toBe('registry-auth');
    expect(
      classOf(
        'Failed to generate AWS EC2 Instance Types: NoCredentialProviders: no valid providers in chain. Deprecated.',
      ),
    ).toBe('unknown');
    expect(
      classOf(
        'failed to change Route 53 record set: operation error Route 53: ChangeResourceRecordSets, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found',
      ),
    ).toBe('unknown');
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
