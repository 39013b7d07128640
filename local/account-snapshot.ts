import type { Event } from '@aws-sdk/client-cloudtrail';
import { type AccountSnapshot, NODE_ROLE, SUBNET } from './recorded-account.js';

export { healthyAccount } from './healthy-account.js';
// The recorded account's pieces (recorded-account.ts), the healthy account built from them
// (healthy-account.ts) and the changes scenarios make to it.
export * from './recorded-account.js';

/** The CloudTrail LookupEvents record of AmazonEC2ContainerRegistryReadOnly being detached from the node role. */
export function detachEcrReadOnlyEvent(): Event {
  return {
    EventId: '0e3f4b5a-6c7d-48e9-8f01-23456789abcd',
    EventName: 'DetachRolePolicy',
    EventTime: new Date('2026-11-29T09:40:00Z'),
    Username: 'jane.doe@example.com',
    EventSource: 'iam.amazonaws.com',
    Resources: [
      { ResourceType: 'AWS::IAM::Role', ResourceName: NODE_ROLE },
      { ResourceType: 'AWS::IAM::Policy', ResourceName: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly' },
    ],
    CloudTrailEvent: JSON.stringify({
      eventName: 'DetachRolePolicy',
      requestParameters: {
        roleName: NODE_ROLE,
        policyArn: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
      },
    }),
  };
}

/**
 * Fragments the node subnet: one ENI address in every /28, so no aligned block is free — except the
 * `freeBlocks` highest usable ones (the last /28 holds the AWS-reserved broadcast address).
 */
export function fragmentSubnet(a: AccountSnapshot, availableIps = 212, freeBlocks = 0): void {
  a.networkInterfaces.push({
    NetworkInterfaceId: 'eni-0fragmented00001',
    SubnetId: SUBNET,
    Status: 'in-use',
    PrivateIpAddresses: Array.from({ length: 16 }, (_, i) => i)
      .filter((i) => i < 15 - freeBlocks || i === 15)
      .map((i) => ({ PrivateIpAddress: `10.0.12.${i * 16 + 5}`, Primary: i === 0 })),
    Ipv4Prefixes: [],
  });
  a.subnets[0].AvailableIpAddressCount = availableIps;
}
