import { describe, expect, it } from 'vitest';
import type { Ec2Client } from '../../lambdas/aws/ec2/commands.js';
import { callsPerRun, readCapacity } from '../../lambdas/aws/readers/account/subnet-capacity-read.js';
import { formatIpv4, parseCidr } from '../../lambdas/core/remedy/cidr.js';
import {
  analyseSubnet,
  blockStates,
  CNI_CLUSTER_TAG,
  CNI_CREATED_AT_TAG,
  capacityProposals,
  type EniView,
  eniOwner,
  forecastExhaustion,
  rankDrains,
  type SubnetFacts,
} from '../../lambdas/core/remedy/subnet-capacity.js';

const CLUSTER = 'prod-eu';
const NODES = new Set(['i-0aaaaaaaaaaaaaaa1', 'i-0aaaaaaaaaaaaaaa2']);
const ip = (n: number) => formatIpv4(parseCidr('10.0.16.0/24').start + n);
const eni = (id: string, o: Partial<EniView> = {}): EniView => ({
  id,
  status: 'in-use',
  interfaceType: 'interface',
  tags: { [CNI_CLUSTER_TAG]: CLUSTER },
  addresses: [],
  prefixes: [],
  ...o,
});

/** A /24 (16 blocks): node 1 scatters single IPs over blocks 1-4, node 2 holds block 5 in part, a prefix at block 6, an endpoint in block 7. */
function subnet(o: Partial<SubnetFacts> = {}): SubnetFacts {
  return {
    subnetId: 'subnet-0a1b2c3d4e5f60718',
    cidr: '10.0.16.0/24',
    reservations: [{ cidr: '10.0.16.128/28', type: 'prefix' }],
    enis: [
      eni('eni-01', { instanceId: 'i-0aaaaaaaaaaaaaaa1', deviceIndex: 0, addresses: [ip(16), ip(33), ip(50), ip(67)] }),
      eni('eni-02', {
        instanceId: 'i-0aaaaaaaaaaaaaaa2',
        deviceIndex: 1,
        addresses: [ip(80), ip(81)],
        description: 'aws-K8S-i-0aaaaaaaaaaaaaaa2',
      }),
      eni('eni-03', {
        instanceId: 'i-0aaaaaaaaaaaaaaa2',
        deviceIndex: 2,
        prefixes: ['10.0.16.96/28'],
        description: 'aws-K8S-i-0aaaaaaaaaaaaaaa2',
      }),
      eni('eni-04', { interfaceType: 'vpc_endpoint', requesterManaged: true, tags: {}, addresses: [ip(120)] }),
      eni('eni-05', {
        status: 'available',
        description: 'aws-K8S-i-0ddddddddddddddd9',
        addresses: [ip(200)],
        tags: { [CNI_CLUSTER_TAG]: CLUSTER, [CNI_CREATED_AT_TAG]: '2026-11-20T10:00:00Z' },
      }),
      eni('eni-06', {
        status: 'available',
        description: 'aws-K8S-i-0eeeeeeeeeeeeeee9',
        addresses: [ip(210)],
        tags: {},
      }),
      eni('eni-07', {
        instanceId: 'i-0ccccccccccccccc7',
        deviceIndex: 1,
        addresses: [ip(230)],
        tags: { [CNI_CLUSTER_TAG]: 'batch' },
      }),
    ],
    ...o,
  };
}

describe('/28 blocks and ENI owners', () => {
  it('classifies every block: AWS-reserved, fragmented, prefix-delegated, reserved, free', () => {
    expect(blockStates(subnet())).toEqual([
      'aws-reserved',
      'fragmented',
      'fragmented',
      'fragmented',
      'fragmented',
      'fragmented',
      'prefix-delegated',
      'fragmented',
      'reserved',
      'free',
      'free',
      'free',
      'fragmented',
      'fragmented',
      'fragmented',
      'aws-reserved',
    ]);
  });

  it('names owners: pods, node, another cluster, another service, orphaned (attributable or not)', () => {
    const s = subnet();
    expect(s.enis.map((e) => eniOwner(e, CLUSTER, NODES))).toEqual([
      'node',
      'pods',
      'pods',
      'other-service',
      'orphaned',
      'orphaned-unattributed',
      'other-cluster',
    ]);
    const a = analyseSubnet(s, CLUSTER, NODES);
    expect(a).toMatchObject({ totalBlocks: 16, freeAlignedBlocks: 4, sharedWith: ['batch'], truncated: false });
    // 256 - 5 AWS-reserved - 10 used - 16 delegated - 16 prefix-reserved = 209 free addresses, 48 of them in free blocks outside the reservation.
    expect(a.freeAddresses).toBe(209);
    expect(a.fragmentation).toBeCloseTo(1 - 64 / 209, 3);
  });
});

describe('the forecast: least squares over hourly points, projected to no free aligned /28', () => {
  const at = (h: number) => Date.parse('2026-11-29T00:00:00Z') + h * 3_600_000;
  it('12 blocks losing one an hour: 12 h to none, fires within a 24 h horizon, not within 6 h', () => {
    const points = [18, 17, 16, 15, 14, 13, 12].map((v, i) => ({ at: at(i), freeAlignedBlocks: v }));
    expect(forecastExhaustion(points, 24)).toEqual({ slopePerHour: -1, hoursToExhaustion: 12, fires: true, points: 7 });
    expect(forecastExhaustion(points, 6).fires).toBe(false);
  });
  it('flat or growing never fires; fewer than 3 points is no forecast; none left fires now', () => {
    expect(
      forecastExhaustion(
        [5, 5, 5].map((v, i) => ({ at: at(i), freeAlignedBlocks: v })),
        24,
      ).fires,
    ).toBe(false);
    expect(
      forecastExhaustion(
        [5, 4].map((v, i) => ({ at: at(i), freeAlignedBlocks: v })),
        24,
      ),
    ).toEqual({ slopePerHour: 0, fires: false, points: 2 });
    expect(
      forecastExhaustion(
        [2, 1, 0].map((v, i) => ({ at: at(i), freeAlignedBlocks: v })),
        24,
      ),
    ).toMatchObject({ hoursToExhaustion: 0, fires: true });
  });
});

describe('proposals: a reservation before it fragments further; drains and deletions only of what pod-doctor can attribute', () => {
  const now = Date.parse('2026-11-29T10:00:00Z');
  const firing = { slopePerHour: -0.5, hoursToExhaustion: 8, fires: true, points: 12 };
  const o = { cluster: CLUSTER, nodes: NODES, now, orphanAgeMs: 24 * 3_600_000 };

  it('reserves the largest free aligned range and deletes only the orphan of this cluster older than a day, with evidence', () => {
    const s = subnet();
    const p = capacityProposals(s, analyseSubnet(s, CLUSTER, NODES), firing, o);
    expect(p).toEqual([
      expect.objectContaining({
        kind: 'create-cidr-reservation',
        subnetId: 'subnet-0a1b2c3d4e5f60718',
        cidr: '10.0.16.160/27',
      }),
      {
        kind: 'delete-orphaned-eni',
        eniId: 'eni-05',
        evidence: {
          status: 'available',
          description: 'aws-K8S-i-0ddddddddddddddd9',
          [CNI_CLUSTER_TAG]: CLUSTER,
          [CNI_CREATED_AT_TAG]: '2026-11-20T10:00:00Z',
          addresses: ip(200),
        },
      },
    ]);
  });

  it('drains are ranked by the blocks only that node holds; a block shared with another cluster or service gives nothing back', () => {
    expect(rankDrains(subnet(), CLUSTER, NODES)).toEqual([
      { instanceId: 'i-0aaaaaaaaaaaaaaa1', blocks: 4 },
      { instanceId: 'i-0aaaaaaaaaaaaaaa2', blocks: 1 },
    ]);
    const shared = subnet();
    const mixed = {
      ...shared,
      enis: [
        ...shared.enis,
        eni('eni-08', {
          instanceId: 'i-0ccccccccccccccc7',
          deviceIndex: 1,
          addresses: [ip(17)],
          tags: { [CNI_CLUSTER_TAG]: 'batch' },
        }),
      ],
    };
    expect(rankDrains(mixed, CLUSTER, NODES)[0]).toEqual({ instanceId: 'i-0aaaaaaaaaaaaaaa1', blocks: 3 });
  });

  it('a truncated read proposes nothing', () => {
    const s = subnet({ truncated: true });
    expect(capacityProposals(s, analyseSubnet(s, CLUSTER, NODES), firing, o)).toEqual([
      {
        kind: 'none',
        reason: 'subnet-0a1b2c3d4e5f60718: the ENI read was cut at its bound: no proposal on a partial view',
      },
    ]);
  });
});

/** EC2 as it answers: MaxResults 5-1000, NextToken pages, a subnet-id filter (a stricter double than the shared mock). */
function ec2(enis: number): Ec2Client & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async send(c: { action: string; input: Record<string, unknown> }) {
      calls.push(c.action);
      if (c.action === 'DescribeSubnets')
        return { Subnets: [{ SubnetId: 'subnet-0a1b2c3d4e5f60718', CidrBlock: '10.0.0.0/18' }] };
      if (c.action === 'GetSubnetCidrReservations') return { SubnetIpv4CidrReservations: [] };
      const max = c.input.MaxResults as number;
      if (!(max >= 5 && max <= 1000))
        throw Object.assign(new Error('InvalidParameterValue'), { name: 'InvalidParameterValue' });
      const start = Number(c.input.NextToken ?? 0);
      const items = Array.from({ length: Math.max(0, Math.min(max, enis - start)) }, (_, i) => ({
        NetworkInterfaceId: `eni-${start + i}`,
        Status: 'in-use',
        PrivateIpAddresses: [{ PrivateIpAddress: formatIpv4(parseCidr('10.0.0.0/18').start + 16 + start + i) }],
      }));
      return { NetworkInterfaces: items, ...(start + max < enis ? { NextToken: String(start + max) } : {}) };
    },
  } as unknown as Ec2Client & { calls: string[] };
}

describe('the EC2 reads: paged, bounded, counted', () => {
  it('3,500 ENIs are 4 pages of 1,000; 1 + 4 + 1 calls', async () => {
    const c = ec2(3_500);
    const r = await readCapacity(c, ['subnet-0a1b2c3d4e5f60718']);
    expect(r.subnets[0]?.enis).toHaveLength(3_500);
    expect(r.calls).toEqual({ DescribeSubnets: 1, DescribeNetworkInterfaces: 4, GetSubnetCidrReservations: 1 });
    expect(callsPerRun([3_500])).toBe(6);
  });
  it('past the page bound the read stops and says truncated; a subnet EC2 does not return is named missing', async () => {
    const r = await readCapacity(ec2(12_000), ['subnet-0a1b2c3d4e5f60718', 'subnet-0ffffffffffffffff'], {
      maxPages: 10,
    });
    expect(r.subnets[0]).toMatchObject({ truncated: true });
    expect(r.subnets[0]?.enis).toHaveLength(10_000);
    expect(r.missing).toEqual(['subnet-0ffffffffffffffff']);
  });
});
