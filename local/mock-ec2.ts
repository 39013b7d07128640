import type { Filter } from '@aws-sdk/client-ec2';
import {
  DescribeInstancesCommand,
  DescribeInstanceTypesCommand,
  DescribeNetworkInterfacesCommand,
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcEndpointsCommand,
  GetSubnetCidrReservationsCommand,
} from '../lambdas/aws/ec2/commands.js';
import type { AccountSnapshot } from './account-snapshot.js';
import type { Ec2Double } from './ec2-double.js';
import type { Answer } from './mock-account-writes.js';
import { filterValues, glob, paged, serviceError } from './mock-sdk.js';

export type Ec2Stub = Ec2Double;

/** EC2 reads of the recorded account: instances, route tables, VPC endpoints, security groups, subnets. */
export function mockEc2Reads(e: Ec2Stub, account: AccountSnapshot, on: Answer): void {
  e.on(DescribeInstancesCommand).callsFake(
    on('DescribeInstancesCommand', (input: { InstanceIds?: string[]; Filters?: Filter[] }) => {
      const dns = filterValues(input.Filters, 'private-dns-name');
      const found = account.instances.filter((x) =>
        input.InstanceIds
          ? input.InstanceIds.includes(x.InstanceId ?? '')
          : dns
            ? dns.some((d) => glob(d, x.PrivateDnsName))
            : true,
      );
      return {
        Reservations: found.length
          ? [{ ReservationId: 'r-0a1b2c3d4e5f60718', OwnerId: account.accountId, Instances: found }]
          : [],
      };
    }),
  );
  e.on(DescribeRouteTablesCommand).callsFake(
    on('DescribeRouteTablesCommand', (input: { Filters?: Filter[] }) => {
      const subnet = filterValues(input.Filters, 'association.subnet-id');
      const vpc = filterValues(input.Filters, 'vpc-id');
      const main = filterValues(input.Filters, 'association.main');
      return {
        RouteTables: account.routeTables.filter(
          (t) =>
            (!subnet || t.Associations?.some((a) => subnet.includes(a.SubnetId ?? ''))) &&
            (!vpc || vpc.includes(t.VpcId ?? '')) &&
            (!main || t.Associations?.some((a) => a.Main === (main[0] === 'true'))),
        ),
      };
    }),
  );
  e.on(DescribeVpcEndpointsCommand).callsFake(
    on('DescribeVpcEndpointsCommand', (input: { Filters?: Filter[]; NextToken?: string }) => {
      const vpc = filterValues(input.Filters, 'vpc-id');
      const p = paged(
        account.vpcEndpoints.filter((v) => !vpc || vpc.includes(v.VpcId ?? '')),
        input.NextToken,
      );
      return { VpcEndpoints: p.items, NextToken: p.NextToken };
    }),
  );
  e.on(DescribeSecurityGroupsCommand).callsFake(
    on('DescribeSecurityGroupsCommand', (input: { GroupIds?: string[] }) => ({
      SecurityGroups: account.securityGroups.filter((g) => !input.GroupIds || input.GroupIds.includes(g.GroupId ?? '')),
    })),
  );
  e.on(DescribeSubnetsCommand).callsFake(
    on('DescribeSubnetsCommand', (input: { SubnetIds?: string[] }) => ({
      Subnets: account.subnets.filter((s) => !input.SubnetIds || input.SubnetIds.includes(s.SubnetId ?? '')),
    })),
  );
  mockEc2Capacity(e, account, on);
}

/** EC2 reads of capacity: network interfaces (paged), CIDR reservations, instance types. */
function mockEc2Capacity(e: Ec2Stub, account: AccountSnapshot, on: Answer): void {
  e.on(DescribeNetworkInterfacesCommand).callsFake(
    on(
      'DescribeNetworkInterfacesCommand',
      (input: { Filters?: Filter[]; NextToken?: string; NetworkInterfaceIds?: string[] }) => {
        const subnet = filterValues(input.Filters, 'subnet-id');
        const instance = filterValues(input.Filters, 'attachment.instance-id');
        const ids = input.NetworkInterfaceIds;
        if (ids) {
          const found = account.networkInterfaces.filter((n) => ids.includes(n.NetworkInterfaceId ?? ''));
          // EC2 refuses the whole call when one id does not exist.
          if (found.length < ids.length)
            throw serviceError(
              'InvalidNetworkInterfaceID.NotFound',
              `The networkInterface ID '${ids[0]}' does not exist`,
              400,
            );
          return { NetworkInterfaces: found };
        }
        const all = account.networkInterfaces.filter(
          (n) =>
            (!subnet || subnet.includes(n.SubnetId ?? '')) &&
            (!instance || instance.includes(n.Attachment?.InstanceId ?? '')),
        );
        // By instance the check reads one call (an instance has a handful of ENIs); by subnet it pages.
        if (instance) return { NetworkInterfaces: all };
        const p = paged(all, input.NextToken, 1);
        return { NetworkInterfaces: p.items, NextToken: p.NextToken };
      },
    ),
  );
  e.on(GetSubnetCidrReservationsCommand).callsFake(
    on('GetSubnetCidrReservationsCommand', (input: { SubnetId?: string }) => {
      const all = account.cidrReservations[input.SubnetId ?? ''] ?? [];
      return {
        SubnetIpv4CidrReservations: all.filter((x) => !x.Cidr?.includes(':')),
        SubnetIpv6CidrReservations: all.filter((x) => x.Cidr?.includes(':')),
      };
    }),
  );
  e.on(DescribeInstanceTypesCommand).callsFake(
    on('DescribeInstanceTypesCommand', (input: { InstanceTypes?: string[] }) => ({
      InstanceTypes: account.instanceTypes.filter(
        (t) => !input.InstanceTypes || input.InstanceTypes.includes(t.InstanceType ?? ''),
      ),
    })),
  );
}
