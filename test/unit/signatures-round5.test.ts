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
