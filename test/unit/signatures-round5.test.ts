import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/classifier.js';

/**
 * ipamd's own strings (aws/amazon-vpc-cni-k8s pkg/ipamd/datastore/data_store.go, pkg/ipamd/ipamd.go,
 * pkg/ipamd/rpc_handler.go, cmd/routed-eni-cni-plugin/cni.go), read by what ipamd does when it prints them.
 */
const classOf = (m: string) => classifyMessage(m).class;

describe("ipamd's walk of its pool for one pod", () => {
  it('reads each full CIDR or ENI on the way as noise, the end of the walk as IP exhaustion', () => {
    // One line per assigned /32 (secondary-IP mode) or full /28 prefix, then ipamd tries the next one.
    for (const step of [
      'Get free IP from prefix failed no free IP available in the prefix - 10.0.3.17/ffffffff',
      'Unable to get IP address from CIDR: no free IP available in the prefix - 10.0.3.17/ffffffff',
      'Unable to get IP address from prefix: no free IP available in the prefix - 2600:1f14:abc:de00::/80',
      'AssignPodIPv4Address: ENI eni-0a1b2c3d4e5f60718 does not have available addresses',
      'AssignPodIPv4Address: Skip ENI eni-0a1b2c3d4e5f60718 that does not have available addresses',
    ])
      expect(classOf(step), step).toBe('unknown');
    for (const end of [
      'DataStore has no available IP/Prefix addresses',
      'Failed to assign IPs from network card 0: AssignPodIPAddress: no available IP/Prefix addresses',
      'Returning failure response for AddNetwork: [AssignPodIPAddress: no available IP/Prefix addresses]',
      'Send AddNetworkReply: IPv4Addr , IPv6Addr: , DeviceNumber: -1, err: AssignPodIPv4Address: no available IP/Prefix addresses',
      'add cmd: failed to assign an IP address to container',
      'Failed to assign an IP address to container 0d6e3f',
    ])
      expect(classOf(end), end).toBe('ip-exhaustion');
  });
});

describe('ipamd debug lines that print whatever EC2 error they check', () => {
  it('reads the error, not the name of the function that checks it', () => {
    expect(
      classOf(
        'containsInsufficientCIDRsOrSubnetIPs encountered operation error EC2: AssignPrivateIpAddresses, https response error StatusCode: 400, api error InvalidParameterValue: bad',
      ),
    ).toBe('unknown');
    expect(
      classOf(
        'containsInsufficientCIDRsOrSubnetIPs encountered operation error EC2: AssignPrivateIpAddresses, api error InsufficientCidrBlocks: There are not enough free cidr blocks in the specified subnet to satisfy the request.',
      ),
    ).toBe('cidr-fragmentation');
    expect(classOf('Insufficient IP Addresses due to: InvalidParameterValue')).toBe('unknown');
    expect(classOf('Insufficient IP Addresses due to: InsufficientCidrBlocks')).toBe('cidr-fragmentation');
    expect(classOf('Insufficient IP Addresses due to: InsufficientFreeAddressesInSubnet')).toBe('ip-exhaustion');
    expect(classOf('containsPrivateIPAddressLimitExceededError encountered RequestLimitExceeded: Request limit')).toBe(
      'unknown',
    );
    expect(
      classOf(
        'AssignPrivateIpAddresses returned PrivateIpAddressLimitExceeded. This can happen if the data store is out of sync.Returning without an error here since we will verify the actual state by calling EC2 to see what addresses have already assigned to this ENI.',
      ),
    ).toBe('unknown');
  });

  it("keeps ipamd's InsufficientCidr cool-down as CIDR fragmentation", () => {
    expect(classOf('Recently we had InsufficientCidr error hence will wait for 2m0s before retrying')).toBe(
      'cidr-fragmentation',
    );
  });
});

describe("kubelet's PID pressure", () => {
  it("reads its taint and the eviction's node condition as PID exhaustion, as disk pressure is read", () => {
    expect(
      classOf(
        '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/pid-pressure: }, 2 node(s) had untolerated taint {dedicated: gpu}.',
      ),
    ).toBe('pid-exhaustion');
    expect(classOf('The node had condition: [PIDPressure]. ')).toBe('pid-exhaustion');
    expect(classOf('Node ip-10-0-1-2.ec2.internal status is now: NodeHasSufficientPID')).toBe('unknown');
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

describe("kube-controller-manager's node CIDR allocator", () => {
  it('reads a cluster CIDR with no node range left as IP exhaustion, a node range handed out as healthy', () => {
    expect(
      classOf(
        'Error while processing Node Add/Delete: failed to allocate cidr from cluster cidr at idx:0: CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range',
      ),
    ).toBe('ip-exhaustion');
    expect(classOf('Node ip-10-0-1-2 status is now: CIDRNotAvailable')).toBe('ip-exhaustion');
    expect(classOf('Set node ip-10-0-1-2 PodCIDR to [10.244.3.0/24]')).toBe('unknown');
  });
});

describe('other IPAMs with nothing left to hand out', () => {
  it("reads Calico's strict-affinity block exhaustion, whereabouts' full range and EKS's node group health code", () => {
    for (const m of [
      'plugin type="calico" failed (add): failed to request IPv4 addresses: IPAM: no more free affine blocks',
      'error adding container to network "macvlan-conf": Error at storage engine: Could not allocate IP in range: ip: 10.0.0.98 / - 10.0.0.99 / range: net.IPNet{IP:net.IP{0xa, 0x0, 0x0, 0x60}}',
      'InsufficientFreeAddresses: One or more of the subnets associated with your managed node group does not have enough available IP addresses for new nodes.',
    ])
      expect(classOf(m), m).toBe('ip-exhaustion');
    expect(classOf('Allocated IP 10.0.0.98 in range 10.0.0.96/28 for pod macvlan-pod')).toBe('unknown');
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

describe("the Kubernetes API server's refusals", () => {
  it('reads an RBAC denial as no registry refusal, even of secrets or daemonsets', () => {
    for (const m of [
      'secrets "regcred" is forbidden: User "system:serviceaccount:default:builder" cannot get resource "secrets" in API group "" in the namespace "default"',
      'daemonsets.apps is forbidden: User "system:node:ip-10-0-1-2" cannot list resource "daemonsets" in API group "apps" at the cluster scope',
      'Failed to watch *v1.Secret: failed to list *v1.Secret: secrets is forbidden: User "system:serviceaccount:kube-system:lbc" cannot list resource "secrets"',
    ])
      expect(classOf(m), m).toBe('unknown');
    expect(
      classOf(
        'Failed to pull image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/app:1": failed to resolve reference: unexpected status from HEAD request: 403 Forbidden',
      ),
    ).toBe('registry-auth');
  });
});

describe("C++'s std::thread without a PID left", () => {
  it('reads std::system_error with EAGAIN as PID exhaustion, as a joined paste and as its what() line', () => {
    expect(
      classOf(
        "terminate called after throwing an instance of 'std::system_error'   what():  Resource temporarily unavailable",
      ),
    ).toBe('pid-exhaustion');
    expect(classOf('  what():  Resource temporarily unavailable')).toBe('pid-exhaustion');
    expect(classOf("terminate called after throwing an instance of 'std::bad_alloc'   what():  std::bad_alloc")).toBe(
      'unknown',
    );
  });
});

describe('EC2 refusing a call that is not the VPC CNI', () => {
  it("reads another client's UnauthorizedOperation as no CNI permission, ipamd's own as one", () => {
    for (const m of [
      '[ERROR] aws.ec2.EC2InstancesCollector failed UnauthorizedOperation: You are not authorized to perform this operation.',
      '"errorMessage": "UnauthorizedOperation: You are not authorized to perform this operation.",',
      'An error occurred (UnauthorizedOperation) when calling the DescribeInstances operation: You are not authorized to perform this operation.',
    ])
      expect(classOf(m), m).toBe('unknown');
    expect(
      classOf(
        'Failed to call ec2:AssignPrivateIpAddresses for eni-0a1b2c3d: UnauthorizedOperation: You are not authorized to perform this operation.',
      ),
    ).toBe('cni-permissions');
    expect(
      classOf(
        'Initialization failure: Failed calling DescribeInstanceTypes for `m5.xlarge`: UnauthorizedOperation: You are not authorized to perform this operation.',
      ),
    ).toBe('cni-permissions');
  });
});

describe("a token that is not the registry's", () => {
  it("reads a session's or a service account's token refused as no registry refusal, the registry's token flow as one", () => {
    for (const m of [
      'rpc error: code = Unauthenticated desc = invalid session: token has invalid claims: token is expired',
      'Failed to get token for service account default/app: 403 Forbidden',
    ])
      expect(classOf(m), m).toBe('unknown');
    expect(
      classOf(
        'failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fx%3Apull&service=registry.docker.io: 401 Unauthorized',
      ),
    ).toBe('registry-auth');
    expect(
      classOf(
        'failed to fetch oauth token: unexpected status from POST request to https://quay.io/v2/auth: 403 Forbidden',
      ),
    ).toBe('registry-auth');
  });
});
