import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/classifier.js';

/**
 * Causes read from the emitting programs' own strings (aws/amazon-vpc-resource-controller-k8s pool.go and
 * warm.go, aws/amazon-vpc-cni-k8s cni.go, EC2's error texts), each with a look-alike that must not match.
 */
const classOf = (m: string) => classifyMessage(m).class;

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

describe('image copies that break mid-blob', () => {
  it('reads a reset or EOF while writing or copying a blob as the registry path failing', () => {
    expect(classOf('writing blob: happened during read: unexpected EOF')).toBe('registry-unreachable');
    expect(
      classOf('copying blob sha256:ab12: read tcp 10.0.0.5:5123->3.3.3.3:443: read: connection reset by peer'),
    ).toBe('registry-unreachable');
    expect(classOf('writing config: unexpected EOF in JSON body')).toBe('unknown');
  });
});

describe('Windows resolver wording', () => {
  it('reads "No such host is known" looking up a registry as unreachable', () => {
    expect(classOf('lookup registry-1.docker.io: getaddrinfow: No such host is known.')).toBe('registry-unreachable');
    expect(classOf('lookup db.internal: getaddrinfow: No such host is known.')).toBe('unknown');
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

describe("kubelet's eviction manager", () => {
  it('reads its failure to rank pods for a disk signal as the disk filling up, its routine observations as nothing', () => {
    expect(classOf('eviction manager: no ranking function for resource imagefs')).toBe('disk-full');
    expect(
      classOf(
        'eviction manager: observations after resource reclaim: signal=imagefs.available, available: 143150240Ki, capacity: 204700Mi',
      ),
    ).toBe('unknown');
  });
});

describe('HTTP/2 and HTTP/1 transport breaks (Go net/http) while pulling', () => {
  it('reads GOAWAY, a stream error and a broken transport in a pull as the registry path failing, not elsewhere', () => {
    expect(
      classOf(
        'Failed to pull image "acme/api:1.2": failed to copy: read tcp 10.0.1.5:443: http2: server sent GOAWAY and closed the connection; LastStreamID=1999',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf(
        'error pulling image configuration: download failed after attempts=1: stream error: stream ID 3; INTERNAL_ERROR',
      ),
    ).toBe('registry-unreachable');
    expect(classOf('apiserver: http2: server sent GOAWAY and closed the connection')).toBe('unknown');
  });
});

describe("containerd's pull-progress timeout", () => {
  it('reads a pull cancelled for want of progress (image_pull.go) as the registry path stalling, its stop report as nothing', () => {
    expect(
      classOf(
        'cancel pulling image 111122223333.dkr.ecr.us-east-1.amazonaws.com/app:v1 because of no progress in 1m0s',
      ),
    ).toBe('registry-unreachable');
    expect(
      classOf(
        'stop pulling image 111122223333.dkr.ecr.us-east-1.amazonaws.com/app:v1: active requests=0, bytes read=52428800',
      ),
    ).toBe('unknown');
  });
});
