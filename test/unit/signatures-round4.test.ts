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
