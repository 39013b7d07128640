import type { Subnet } from '@aws-sdk/client-ec2';
import type { SubnetUsage } from '../../../core/remedy/cidr.js';
import {
  DescribeSubnetsCommand,
  type Ec2Client,
  GetSubnetCidrReservationsCommand,
  paginateDescribeNetworkInterfaces,
} from '../../ec2/commands.js';

/** What occupies a subnet's addresses: ENI addresses, delegated prefixes, CIDR reservations (with their ids). */
export async function subnetUsage(
  ec2: Ec2Client,
  subnetId: string,
): Promise<{ subnet: Subnet; usage: SubnetUsage & { reservationIds: Record<string, string> } }> {
  const subnet = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnetId] }))).Subnets?.[0];
  if (!subnet?.CidrBlock) throw new Error(`subnet ${subnetId} not found`);
  const addresses: string[] = [];
  const prefixes: string[] = [];
  for await (const page of paginateDescribeNetworkInterfaces(
    { client: ec2 },
    { Filters: [{ Name: 'subnet-id', Values: [subnet.SubnetId ?? ''] }] },
  )) {
    for (const eni of page.NetworkInterfaces ?? []) {
      for (const a of eni.PrivateIpAddresses ?? []) if (a.PrivateIpAddress) addresses.push(a.PrivateIpAddress);
      for (const p of eni.Ipv4Prefixes ?? []) if (p.Ipv4Prefix) prefixes.push(p.Ipv4Prefix);
    }
  }
  const res = await ec2.send(new GetSubnetCidrReservationsCommand({ SubnetId: subnet.SubnetId }));
  const v4 = res.SubnetIpv4CidrReservations ?? [];
  const reservations = v4.map((r) => ({
    cidr: r.Cidr ?? '',
    type: (r.ReservationType === 'explicit' ? 'explicit' : 'prefix') as 'prefix' | 'explicit',
  }));
  const reservationIds = Object.fromEntries(v4.map((r) => [r.Cidr ?? '', r.SubnetCidrReservationId ?? '']));
  return { subnet, usage: { subnetCidr: subnet.CidrBlock, addresses, prefixes, reservations, reservationIds } };
}
