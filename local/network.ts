import { createServer, type Server, type Socket } from 'node:net';
import { type EndpointAccess, endpointReach } from '../lambdas/core/contract/cluster-reach.js';
import { arnOf, idsOfType, type ResolvedTemplate } from './template.js';

/**
 * The network between a deployed function and a cluster's API server in the local world (issue 36):
 * where the function runs is read from the synthesized template (its `VpcConfig`, and the
 * `AWS::EC2::SecurityGroupIngress` rules the template adds to other groups), never from a test flag;
 * where the endpoint listens is the cluster's `resourcesVpcConfig`. A function that could not reach
 * the endpoint on AWS gets no answer here either.
 */

/** Where a function runs, as the template deploys it. */
export interface Placement {
  /** The function's logical id (for messages). */
  readonly function: string;
  /** `VpcConfig.SubnetIds`; empty: outside any VPC. */
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
  /** The template's ingress rules on other groups: `groupId` admits `sourceGroupId` on ports from..to (tcp). */
  readonly ingress: readonly { groupId: string; sourceGroupId: string; fromPort: number; toPort: number }[];
}

/** The cluster's network as `DescribeCluster` and EC2 describe it. */
export interface ClusterNetwork extends EndpointAccess {
  readonly vpcId: string;
  /** Every subnet of the VPC (the cluster's and the others). */
  readonly vpcSubnetIds: readonly string[];
  readonly clusterSecurityGroupId: string;
  /** Security groups the cluster security group already admits on 443, besides itself. @default none */
  readonly admittedGroups?: readonly string[];
  /** The VPC routes to the internet through a NAT gateway (a public endpoint is reached through it). @default false */
  readonly nat?: boolean;
}

/** A public endpoint open to everyone, no private endpoint: what the recorded cluster has. */
export const PUBLIC_NETWORK: ClusterNetwork = {
  vpcId: 'vpc-0recorded000000001',
  vpcSubnetIds: [],
  clusterSecurityGroupId: 'sg-0recorded000000001',
  endpointPublicAccess: true,
  endpointPrivateAccess: false,
  publicAccessCidrs: ['0.0.0.0/0'],
};

/** The API port. */
const HTTPS = 443;

/** Where the function `fnArn` runs, from the template: its VpcConfig, and the ingress rules the template adds. */
export function placementOf(template: ResolvedTemplate, fnArn: string): Placement {
  const id = idsOfType(template, 'AWS::Lambda::Function').find((x) => arnOf(template, x) === fnArn);
  if (!id) throw new Error(`no function ${fnArn} in the template`);
  return placementOfId(template, id);
}

/** {@link placementOf} by logical id. */
export function placementOfId(template: ResolvedTemplate, id: string): Placement {
  const vpc = template.Resources[id].Properties?.VpcConfig as
    | { SubnetIds?: string[]; SecurityGroupIds?: string[] }
    | undefined;
  const ingress = idsOfType(template, 'AWS::EC2::SecurityGroupIngress').map((x) => {
    const p = template.Resources[x].Properties ?? {};
    return {
      groupId: String(p.GroupId),
      sourceGroupId: String(p.SourceSecurityGroupId ?? ''),
      fromPort: p.IpProtocol === '-1' ? 0 : Number(p.FromPort),
      toPort: p.IpProtocol === '-1' ? 65535 : Number(p.ToPort),
    };
  });
  return {
    function: id,
    subnetIds: vpc?.SubnetIds ?? [],
    securityGroupIds: vpc?.SecurityGroupIds ?? [],
    ingress,
  };
}

export type Reach = { readonly reached: true } | { readonly reached: false; readonly reason: string };

/** Whether a function placed so reaches the cluster's API server, and why not, as the AWS network decides it. */
export function reaches(p: Placement, n: ClusterNetwork): Reach {
  const no = (reason: string): Reach => ({ reached: false, reason: `${p.function}: ${reason}` });
  const endpoint = endpointReach(n);
  if (p.subnetIds.length === 0) {
    if (endpoint === 'public') return { reached: true };
    return no(
      endpoint === 'vpc'
        ? `runs outside any VPC; the API endpoint is private (${n.vpcId}) or public only to ${n.publicAccessCidrs?.join(', ')}`
        : `runs outside any VPC; the public endpoint admits only ${n.publicAccessCidrs?.join(', ')}`,
    );
  }
  const foreign = p.subnetIds.filter((s) => !n.vpcSubnetIds.includes(s));
  if (foreign.length > 0) return no(`runs in subnets outside ${n.vpcId} (${foreign.join(', ')})`);
  if (!n.endpointPrivateAccess) {
    return endpoint === 'public' && n.nat ? { reached: true } : no(`the cluster has no private endpoint in ${n.vpcId}`);
  }
  const admitted = (g: string) =>
    g === n.clusterSecurityGroupId ||
    (n.admittedGroups ?? []).includes(g) ||
    p.ingress.some(
      (r) =>
        r.groupId === n.clusterSecurityGroupId && r.sourceGroupId === g && r.fromPort <= HTTPS && r.toPort >= HTTPS,
    );
  if (!p.securityGroupIds.some(admitted))
    return no(`the cluster security group ${n.clusterSecurityGroupId} does not admit its security groups on 443`);
  return { reached: true };
}

/**
 * Where an unreachable endpoint leads: a listener that takes the TCP connection and never answers,
 * as a private address outside the caller's network does (the client's TLS connect timeout ends it,
 * KubernetesUnreachableError, exactly as on AWS).
 */
export class SilentEndpoint {
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  async start(): Promise<string> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('silent endpoint did not listen');
    return `https://127.0.0.1:${address.port}`;
  }

  stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
