import { describe, expect, it } from 'vitest';
import { classify, classifyMessage } from '../../lambdas/core/detect/classifier.js';

/**
 * Pod networking: the aws-cni plugin and ipamd (aws/amazon-vpc-cni-k8s cni.go, pkg/ipamd, awsutils), EC2's
 * words for the calls they make, the Windows warm pool (amazon-vpc-resource-controller-k8s pool.go,
 * warm.go), other IPAMs (Calico, Cilium, whereabouts) and the node CIDR allocator. Each with a look-alike
 * that must not match.
 */
const classOf = (m: string) => classifyMessage(m).class;

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

describe("the Windows node's warm pool (VPC resource controller)", () => {
  it('reads a pool at capacity or empty as IP exhaustion, its cool-down as transient', () => {
    expect(classOf('Reconciler error: cannot assign any more resource from warm pool')).toBe('ip-exhaustion');
    expect(
      classOf('Warm pool for resource vpc.amazonaws.com/PrivateIPv4Address is currently empty, will retry in 600ms'),
    ).toBe('ip-exhaustion');
    expect(classOf('Resource vpc.amazonaws.com/PrivateIPv4Address are being cooled down, will retry in 30s')).toBe(
      'unknown',
    );
    expect(classOf('adding new resources to warm pool')).toBe('unknown');
  });

  it('reads the empty pool for want of free /28 blocks as CIDR fragmentation', () => {
    expect(
      classOf(
        'Warm pool for resource vpc.amazonaws.com/PrivateIPv4Address is currently empty because the specified subnet does not have enough free cidr blocks, will retry in 2m0s',
      ),
    ).toBe('cidr-fragmentation');
  });
});

describe("EC2's words for a missing /28 block", () => {
  it('reads "not enough free cidr blocks" without its code as CIDR fragmentation', () => {
    expect(classOf('There are not enough free cidr blocks in the specified subnet to satisfy the request.')).toBe(
      'cidr-fragmentation',
    );
    expect(classOf('The VPC has 3 cidr blocks associated')).toBe('unknown');
  });
});

describe("the aws-cni plugin's call to ipamd", () => {
  it('reads gRPC Unavailable or DeadlineExceeded as ipamd not answering, an ipamd error as its cause', () => {
    expect(
      classOf(
        'add cmd: Error received from AddNetwork gRPC call: rpc error: code = DeadlineExceeded desc = context deadline exceeded',
      ),
    ).toBe('ipamd-unavailable');
    expect(
      classOf(
        'add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unavailable desc = transport is closing',
      ),
    ).toBe('ipamd-unavailable');
    expect(
      classOf(
        'add cmd: Error received from AddNetwork gRPC call: rpc error: code = Unknown desc = failed to get branch ENI resource',
      ),
    ).toBe('branch-eni');
  });
});

describe("EC2's not-authorized text in a VPC CNI call", () => {
  it('reads it as CNI permissions only in an ENI/IP context', () => {
    expect(
      classOf(
        'Failed to attach ENI eni-0a1b: You are not authorized to perform this operation. Encoded authorization failure message: x1',
      ),
    ).toBe('cni-permissions');
    expect(classOf('aws s3 cp failed: You are not authorized to perform this operation.')).toBe('unknown');
  });
});

describe('CNI IPAM summaries', () => {
  it("reads Calico's AutoAssign summary with nothing assigned as IP exhaustion, a full assignment as nothing", () => {
    expect(
      classOf('Assigned 0 out of 1 requested IPv4 addresses; No more free affine blocks and strict affinity enabled'),
    ).toBe('ip-exhaustion');
    expect(classOf('Assigned 0 out of 1 requested IPv4 addresses; IPAM block limit reached')).toBe('ip-exhaustion');
    expect(classOf('Assigned 10 out of 10 requested IPv4 addresses')).toBe('unknown');
  });

  it("reads Cilium's allocation wrapper by its cause, not by the wrapper", () => {
    expect(
      classOf('unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  range is full'),
    ).toBe('ip-exhaustion');
    expect(
      classOf(
        'plugin type="cilium-cni" failed (add): unable to allocate IP via local cilium agent: [POST /ipam][502] postIpamFailure  unable to allocate from pool "pool-v4" (family ipv6): pool not (yet) available',
      ),
    ).toBe('cni-failure');
  });
});

describe('ipamd without a path to the EC2 API', () => {
  it("reads awsutils' failed EC2 call with a network error as ipamd unavailable, an EC2 answer as not", () => {
    expect(
      classOf(
        'Failed to call ec2:DescribeNetworkInterfaces for [eni-0a1b]: RequestError: send request failed caused by: Post "https://ec2.us-west-2.amazonaws.com/": dial tcp 10.0.0.9:443: connect: no route to host',
      ),
    ).toBe('ipamd-unavailable');
    expect(
      classOf(
        "Failed to call ec2:DescribeNetworkInterfaces for [eni-0a1b]: InvalidNetworkInterfaceID.NotFound: The networkInterface ID 'eni-0a1b' does not exist",
      ),
    ).toBe('unknown');
  });
});

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
