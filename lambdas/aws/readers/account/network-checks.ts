import type { RouteTable, SecurityGroup, VpcEndpoint } from '@aws-sdk/client-ec2';
import { type Finding, finding } from '../../../core/contract/findings.js';
import { partitionOf } from '../../../core/contract/partition.js';
import { evaluate, namesPrincipal, type PolicyDocument } from '../../../core/policy/iam-policy.js';
import { freePrefixBlocks, parseCidr, parseIpv4 } from '../../../core/remedy/cidr.js';
import {
  DescribeRouteTablesCommand,
  DescribeSecurityGroupsCommand,
  type Ec2Client,
  paginateDescribeVpcEndpoints,
} from '../../ec2/commands.js';
import type { NodeContext } from './node-context.js';
import { subnetUsage } from './subnet-usage.js';

/** The route table of a node's subnet: its own association, else the VPC's main table. */
export async function nodeRouteTable(
  ec2: Ec2Client,
  node: Pick<NodeContext, 'subnetId' | 'vpcId'>,
): Promise<RouteTable | undefined> {
  const own = await ec2.send(
    new DescribeRouteTablesCommand({ Filters: [{ Name: 'association.subnet-id', Values: [node.subnetId ?? ''] }] }),
  );
  if (own.RouteTables?.[0]) return own.RouteTables[0];
  const main = await ec2.send(
    new DescribeRouteTablesCommand({
      Filters: [
        { Name: 'vpc-id', Values: [node.vpcId ?? ''] },
        { Name: 'association.main', Values: ['true'] },
      ],
    }),
  );
  return main.RouteTables?.[0];
}

/** A default route to the internet (NAT gateway, internet gateway, NAT instance or transit gateway). */
export function internetRoute(rt: RouteTable | undefined): string | undefined {
  const r = rt?.Routes?.find((x) => x.DestinationCidrBlock === '0.0.0.0/0' && x.State !== 'blackhole');
  return r ? (r.NatGatewayId ?? r.GatewayId ?? r.TransitGatewayId ?? r.NetworkInterfaceId ?? r.InstanceId) : undefined;
}

function policyAllows(ep: VpcEndpoint, action: string, resource: string, roleArn: string): string {
  if (!ep.PolicyDocument) return 'allowed';
  const doc = JSON.parse(ep.PolicyDocument) as PolicyDocument;
  return evaluate([{ name: `${ep.VpcEndpointId} policy`, document: doc }], action, resource, (s) =>
    namesPrincipal(s, roleArn),
  ).decision;
}

export interface NetworkFindingsInput {
  readonly node: NodeContext;
  readonly region: string;
  /** Free IPv4 addresses the node group needs in the node's subnet (e.g. warm pool of one ENI). */
  readonly neededIps: number;
}

/** Where the node's traffic goes: its route table and the default route to the internet, if any. */
interface Egress {
  readonly rt: RouteTable | undefined;
  readonly egress: string | undefined;
}

/** vpc.endpoint.ecr-api, vpc.endpoint.ecr-dkr, vpc.endpoint.sg-443, vpc.endpoint.s3-gateway. */
export async function checkEndpoints(ec2: Ec2Client, input: NetworkFindingsInput): Promise<Finding[]> {
  const { node, region } = input;
  const rt = await nodeRouteTable(ec2, node);
  const route: Egress = { rt, egress: internetRoute(rt) };
  const endpoints = await vpcEndpoints(ec2, node.vpcId ?? '');
  const out: Finding[] = [];
  const interfaceEndpoints: VpcEndpoint[] = [];
  for (const [id, service, action] of [
    ['vpc.endpoint.ecr-api', `com.amazonaws.${region}.ecr.api`, 'ecr:GetAuthorizationToken'],
    ['vpc.endpoint.ecr-dkr', `com.amazonaws.${region}.ecr.dkr`, 'ecr:BatchGetImage'],
  ] as const) {
    const ep = endpoints.find(
      (e) => e.ServiceName === service && e.VpcEndpointType === 'Interface' && e.State?.toLowerCase() !== 'deleted',
    );
    if (ep) interfaceEndpoints.push(ep);
    out.push(ecrEndpointFinding(id, service, action, ep, node, route));
  }
  out.push(await endpointGroupsFinding(ec2, node, interfaceEndpoints));
  out.push(s3GatewayFinding(endpoints, region, node, route));
  return out;
}

async function vpcEndpoints(ec2: Ec2Client, vpcId: string): Promise<VpcEndpoint[]> {
  const endpoints: VpcEndpoint[] = [];
  for await (const page of paginateDescribeVpcEndpoints(
    { client: ec2 },
    { Filters: [{ Name: 'vpc-id', Values: [vpcId] }] },
  )) {
    endpoints.push(...(page.VpcEndpoints ?? []));
  }
  return endpoints;
}

/** One ECR interface endpoint (ecr.api or ecr.dkr): present, available, private DNS, policy allows the node role. */
function ecrEndpointFinding(
  id: string,
  service: string,
  action: string,
  ep: VpcEndpoint | undefined,
  node: NodeContext,
  { rt, egress }: Egress,
): Finding {
  const evidence = {
    service,
    routeTable: rt?.RouteTableId,
    defaultRoute: egress ?? null,
    endpoint: ep?.VpcEndpointId ?? null,
  };
  if (!ep) {
    return egress
      ? finding(id, 'pass', `no ${service} endpoint; the node reaches ECR through ${egress}`, evidence)
      : finding(
          id,
          'fail',
          `node subnet ${node.subnetId} has no route to the internet and VPC ${node.vpcId} has no ${service} endpoint`,
          evidence,
          `create an interface endpoint for ${service} with private DNS in the node subnets`,
        );
  }
  const decision = policyAllows(ep, action, '*', node.roleArn ?? '');
  if (ep.State?.toLowerCase() !== 'available')
    return finding(id, 'fail', `${ep.VpcEndpointId} is ${ep.State}`, evidence, 'wait for or recreate the endpoint');
  if (!ep.PrivateDnsEnabled)
    return finding(
      id,
      'fail',
      `${ep.VpcEndpointId} has private DNS disabled: ECR names still resolve to public IPs`,
      evidence,
      `enable private DNS on ${ep.VpcEndpointId}`,
    );
  if (decision !== 'allowed')
    return finding(
      id,
      'fail',
      `${ep.VpcEndpointId} policy does not allow ${action} for ${node.roleName} (${decision})`,
      { ...evidence, decision },
      `allow ${action} in the endpoint policy of ${ep.VpcEndpointId}`,
    );
  return finding(id, 'pass', `${ep.VpcEndpointId} available, private DNS on, policy allows ${action}`, evidence);
}

/** True when one of the groups admits TCP 443 from the node (its security groups or a CIDR holding its IP). */
function admits443(groups: readonly SecurityGroup[], node: NodeContext): boolean {
  const nodeIp = node.privateIp ? parseIpv4(node.privateIp) : undefined;
  return groups.some((g) =>
    (g.IpPermissions ?? []).some((p) => {
      const port =
        p.IpProtocol === '-1' || (p.IpProtocol === 'tcp' && (p.FromPort ?? 0) <= 443 && (p.ToPort ?? 0) >= 443);
      if (!port) return false;
      const fromNodeSg = (p.UserIdGroupPairs ?? []).some((u) => u.GroupId && node.securityGroupIds.includes(u.GroupId));
      const fromCidr = (p.IpRanges ?? []).some((r) => {
        if (!r.CidrIp || nodeIp === undefined) return false;
        const c = parseCidr(r.CidrIp);
        return nodeIp >= c.start && nodeIp < c.start + c.size;
      });
      return fromNodeSg || fromCidr;
    }),
  );
}

/** vpc.endpoint.sg-443: the security groups of the interface endpoints must admit 443 from the node. */
async function endpointGroupsFinding(
  ec2: Ec2Client,
  node: NodeContext,
  interfaceEndpoints: readonly VpcEndpoint[],
): Promise<Finding> {
  if (interfaceEndpoints.length === 0) {
    return finding('vpc.endpoint.sg-443', 'pass', 'no ECR interface endpoints: nothing to check', {});
  }
  const groupIds = [...new Set(interfaceEndpoints.flatMap((e) => (e.Groups ?? []).map((g) => g.GroupId ?? '')))].filter(
    Boolean,
  );
  const groups = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: groupIds }))).SecurityGroups ?? [];
  const blocked: string[] = [];
  const blockedGroups: { endpoint: string; groupIds: string[] }[] = [];
  for (const ep of interfaceEndpoints) {
    const sgs = groups.filter((g) => ep.Groups?.some((x) => x.GroupId === g.GroupId));
    if (!admits443(sgs, node)) {
      blocked.push(`${ep.VpcEndpointId} (${ep.ServiceName}; groups ${sgs.map((g) => g.GroupId).join(', ')})`);
      blockedGroups.push({ endpoint: ep.VpcEndpointId ?? '', groupIds: sgs.map((g) => g.GroupId ?? '') });
    }
  }
  return blocked.length
    ? finding(
        'vpc.endpoint.sg-443',
        'fail',
        `endpoint security groups do not allow TCP 443 from the node: ${blocked.join('; ')}`,
        { nodeSecurityGroups: node.securityGroupIds, nodeIp: node.privateIp, blocked, blockedGroups },
        `add an inbound rule TCP 443 from ${node.securityGroupIds[0] ?? 'the node security group'} to the endpoint security group`,
      )
    : finding('vpc.endpoint.sg-443', 'pass', 'endpoint security groups allow TCP 443 from the node', {
        nodeSecurityGroups: node.securityGroupIds,
      });
}

/** vpc.endpoint.s3-gateway: ECR layers come from S3; without internet egress the gateway endpoint must be on the node route table. */
function s3GatewayFinding(
  endpoints: readonly VpcEndpoint[],
  region: string,
  node: NodeContext,
  route: Egress,
): Finding {
  const { rt, egress } = route;
  const s3 = endpoints.find((e) => e.ServiceName === `com.amazonaws.${region}.s3` && e.VpcEndpointType === 'Gateway');
  const layerBucket = `arn:${partitionOf(region)}:s3:::prod-${region}-starport-layer-bucket/*`;
  const onRouteTable = s3 && rt?.RouteTableId && s3.RouteTableIds?.includes(rt.RouteTableId);
  const s3Evidence = {
    endpoint: s3?.VpcEndpointId ?? null,
    routeTable: rt?.RouteTableId,
    defaultRoute: egress ?? null,
    layerBucket,
  };
  if (!s3 || !onRouteTable) {
    return egress
      ? finding(
          'vpc.endpoint.s3-gateway',
          'pass',
          `no S3 gateway endpoint on ${rt?.RouteTableId}; layers come through ${egress}`,
          s3Evidence,
        )
      : finding(
          'vpc.endpoint.s3-gateway',
          'fail',
          `route table ${rt?.RouteTableId} has no S3 gateway endpoint and no internet route: ECR layer downloads fail`,
          s3Evidence,
          `associate an S3 gateway endpoint with ${rt?.RouteTableId}`,
        );
  }
  const decision = policyAllows(s3, 's3:GetObject', layerBucket, node.roleArn ?? '');
  return decision === 'allowed'
    ? finding(
        'vpc.endpoint.s3-gateway',
        'pass',
        `${s3.VpcEndpointId} on ${rt?.RouteTableId} allows the ECR layer bucket`,
        s3Evidence,
      )
    : finding(
        'vpc.endpoint.s3-gateway',
        'fail',
        `${s3.VpcEndpointId} policy does not allow s3:GetObject on ${layerBucket} (${decision})`,
        s3Evidence,
        `allow s3:GetObject on ${layerBucket} in the endpoint policy`,
      );
}

/** subnet.free-ips and subnet.free-prefix-blocks for the node's subnet. */
export async function checkSubnet(ec2: Ec2Client, input: NetworkFindingsInput): Promise<Finding[]> {
  const { node, neededIps } = input;
  const { subnet, usage } = await subnetUsage(ec2, node.subnetId ?? '');
  const free = subnet.AvailableIpAddressCount ?? 0;
  const ipEvidence = { subnet: subnet.SubnetId, cidr: subnet.CidrBlock, availableIpAddressCount: free, neededIps };
  const out: Finding[] = [
    free < neededIps
      ? finding(
          'subnet.free-ips',
          'fail',
          `subnet ${subnet.SubnetId} has ${free} free IPv4 addresses, the node group needs ${neededIps}`,
          ipEvidence,
          'add a subnet (or a secondary VPC CIDR with custom networking) and spread the node group over it',
        )
      : free < neededIps * 2
        ? finding(
            'subnet.free-ips',
            'warn',
            `subnet ${subnet.SubnetId} has ${free} free IPv4 addresses, close to the ${neededIps} needed`,
            ipEvidence,
            'plan more address space',
          )
        : finding('subnet.free-ips', 'pass', `subnet ${subnet.SubnetId} has ${free} free IPv4 addresses`, ipEvidence),
  ];
  const { addresses, prefixes, reservations } = usage;
  const blocks = freePrefixBlocks(usage);
  const blockEvidence = {
    ...blocks,
    subnetId: subnet.SubnetId,
    enisAddresses: addresses.length,
    delegatedPrefixes: prefixes.length,
    reservations,
  };
  out.push(
    blocks.freeBlocks === 0
      ? finding(
          'subnet.free-prefix-blocks',
          'fail',
          `subnet ${subnet.SubnetId} has no free aligned /28 block (${blocks.freeAddresses} single addresses free but fragmented): prefix delegation fails with InsufficientCidrBlocks`,
          blockEvidence,
          // Nothing aligned is free, so a prefix reservation has nothing to reserve.
          'no free aligned /28 is left, so a prefix reservation cannot help: add a subnet (or a secondary VPC CIDR with custom networking) for the node group, or move the VPC CNI from prefix delegation to secondary IPs (ENABLE_PREFIX_DELEGATION=false)',
        )
      : blocks.freeBlocks < 2
        ? finding(
            'subnet.free-prefix-blocks',
            'warn',
            `subnet ${subnet.SubnetId} has only ${blocks.freeBlocks} free /28 block`,
            blockEvidence,
            `reserve the free aligned space for prefixes before the last block goes (aws ec2 create-subnet-cidr-reservation --subnet-id ${subnet.SubnetId} --reservation-type prefix --cidr <the free /28>), or add a subnet for the node group`,
          )
        : finding(
            'subnet.free-prefix-blocks',
            'pass',
            `subnet ${subnet.SubnetId} has ${blocks.freeBlocks} free /28 blocks`,
            blockEvidence,
          ),
  );
  return out;
}
