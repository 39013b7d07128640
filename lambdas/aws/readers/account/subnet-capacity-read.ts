import type { NetworkInterface } from '@aws-sdk/client-ec2';
import type { EniView, SubnetFacts } from '../../../core/remedy/subnet-capacity.js';
import {
  DescribeNetworkInterfacesCommand,
  DescribeSubnetsCommand,
  type Ec2Client,
  GetSubnetCidrReservationsCommand,
} from '../../ec2/commands.js';

/**
 * The capacity analyser's EC2 reads for one cluster's pod subnets (issue 35, part 2), bounded and
 * cheap for subnets with thousands of ENIs (what closed amazon-vpc-cni-k8s#3523: the EC2 API load):
 * one DescribeSubnets for all of them, then per subnet DescribeNetworkInterfaces filtered by
 * `subnet-id` with MaxResults 1000 (the API's largest page) and NextToken, at most `maxPages` pages
 * (a read cut there is marked `truncated`: the analysis then proposes nothing), and one
 * GetSubnetCidrReservations. Reads only; every call is counted.
 */

export const ENI_PAGE_SIZE = 1000;
/** Pages per subnet: 10 pages = 10,000 ENIs (a /19 has 8,187 usable addresses). */
export const MAX_ENI_PAGES = 10;

export interface CapacityRead {
  readonly subnets: readonly SubnetFacts[];
  /** Subnets EC2 did not return (deleted, another account's): named, not analysed. */
  readonly missing: readonly string[];
  /** EC2 calls made, by action. */
  readonly calls: Readonly<Record<string, number>>;
}

export function eniView(e: NetworkInterface): EniView {
  return {
    id: e.NetworkInterfaceId ?? '',
    status: e.Status ?? '',
    ...(e.InterfaceType ? { interfaceType: e.InterfaceType } : {}),
    ...(e.RequesterManaged !== undefined ? { requesterManaged: e.RequesterManaged } : {}),
    ...(e.RequesterId ? { requesterId: e.RequesterId } : {}),
    ...(e.Description ? { description: e.Description } : {}),
    tags: Object.fromEntries((e.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? ''])),
    ...(e.Attachment?.InstanceId ? { instanceId: e.Attachment.InstanceId } : {}),
    ...(e.Attachment?.DeviceIndex !== undefined ? { deviceIndex: e.Attachment.DeviceIndex } : {}),
    addresses: (e.PrivateIpAddresses ?? []).map((a) => a.PrivateIpAddress ?? '').filter(Boolean),
    prefixes: (e.Ipv4Prefixes ?? []).map((p) => p.Ipv4Prefix ?? '').filter(Boolean),
  };
}

export async function readCapacity(
  ec2: Ec2Client,
  subnetIds: readonly string[],
  o: { readonly maxPages?: number } = {},
): Promise<CapacityRead> {
  const calls: Record<string, number> = {};
  const count = (action: string) => {
    calls[action] = (calls[action] ?? 0) + 1;
  };
  if (subnetIds.length === 0) return { subnets: [], missing: [], calls };
  count('DescribeSubnets');
  const described = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [...subnetIds] }))).Subnets ?? [];
  const subnets: SubnetFacts[] = [];
  for (const s of described) {
    if (!s.SubnetId || !s.CidrBlock) continue;
    const enis: EniView[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      count('DescribeNetworkInterfaces');
      const page = await ec2.send(
        new DescribeNetworkInterfacesCommand({
          Filters: [{ Name: 'subnet-id', Values: [s.SubnetId] }],
          MaxResults: ENI_PAGE_SIZE,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      enis.push(...(page.NetworkInterfaces ?? []).map(eniView));
      token = page.NextToken;
      pages += 1;
    } while (token && pages < (o.maxPages ?? MAX_ENI_PAGES));
    count('GetSubnetCidrReservations');
    const res = await ec2.send(new GetSubnetCidrReservationsCommand({ SubnetId: s.SubnetId, MaxResults: 1000 }));
    subnets.push({
      subnetId: s.SubnetId,
      cidr: s.CidrBlock,
      reservations: (res.SubnetIpv4CidrReservations ?? []).map((r) => ({
        cidr: r.Cidr ?? '',
        type: r.ReservationType === 'explicit' ? 'explicit' : 'prefix',
      })),
      enis,
      ...(token ? { truncated: true } : {}),
    });
  }
  const found = new Set(subnets.map((s) => s.subnetId));
  return { subnets, missing: subnetIds.filter((id) => !found.has(id)), calls };
}

/**
 * EC2 calls per analysis of a cluster (one hourly run): 1 DescribeSubnets, and per subnet
 * ceil(ENIs / 1000) DescribeNetworkInterfaces (at least 1, at most the page bound) and 1
 * GetSubnetCidrReservations.
 */
export function callsPerRun(enisPerSubnet: readonly number[], maxPages = MAX_ENI_PAGES): number {
  return (
    1 + enisPerSubnet.reduce((n, enis) => n + Math.min(maxPages, Math.max(1, Math.ceil(enis / ENI_PAGE_SIZE))) + 1, 0)
  );
}
