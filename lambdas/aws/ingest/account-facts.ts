import {
  DescribeAccessEntryCommand,
  DescribeNodegroupCommand,
  type EKSClient,
  paginateListAccessEntries,
  paginateListNodegroups,
} from '@aws-sdk/client-eks';
import type { AccountFacts, FactsNeeded } from '../../core/cloudtrail/cloudtrail-scope.js';
import { clusterOfTags } from '../../core/contract/node-tags.js';
import {
  DescribeInstancesCommand,
  DescribeNetworkInterfacesCommand,
  type Ec2Client,
  paginateDescribeVpcEndpoints,
} from '../ec2/commands.js';
import { cniRole } from '../readers/account/cni-role.js';
import type { NodeContext } from '../readers/account/node-context.js';

/** Access entry types of nodes (managed node groups, Karpenter, self-managed under API authentication). */
const NODE_ENTRY_TYPES = new Set(['EC2_LINUX', 'EC2_WINDOWS', 'EC2', 'HYBRID_LINUX']);
/** At most this many access entries are described per cluster (one call each). */
const MAX_ACCESS_ENTRIES = 100;
/** VPC endpoint services image pulls go through. */
const PULL_ENDPOINT_SERVICE = /\.(ecr\.api|ecr\.dkr|s3)$/;

const roleName = (arn: string | undefined) => arn?.split('/').pop();

/**
 * Looks up what the account says about a CloudTrail event's resources: the node and aws-node roles
 * of the configured clusters, the security groups of the ECR/S3 endpoints, the instance behind a
 * network interface. Role and group lists are cached for `ttlMs` per execution environment. A
 * lookup that fails leaves its fact undefined (the event is then kept).
 */
export class AccountFactsLookup {
  private roles?: { at: number; value: Map<string, string[]> };
  private groups?: { at: number; value: Set<string> };

  constructor(
    private readonly eks: EKSClient,
    private readonly ec2: Ec2Client,
    private readonly clusters: readonly string[],
    private readonly now: () => number,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async factsFor(needed: FactsNeeded): Promise<AccountFacts> {
    const [knownRoles, endpointSecurityGroups, node] = await Promise.all([
      needed.roles ? this.tryOr(() => this.knownRoles()) : undefined,
      needed.endpointSecurityGroups ? this.tryOr(() => this.endpointGroups()) : undefined,
      needed.instanceId || needed.eniId ? this.tryOr(() => this.node(needed.instanceId, needed.eniId)) : undefined,
    ]);
    return { knownRoles, endpointSecurityGroups, node };
  }

  private async tryOr<T>(f: () => Promise<T>): Promise<T | undefined> {
    try {
      return await f();
    } catch {
      return undefined;
    }
  }

  private fresh<T>(c: { at: number; value: T } | undefined): T | undefined {
    return c && this.now() - c.at < this.ttlMs ? c.value : undefined;
  }

  /** Role name → clusters, for every node role and aws-node role of the configured clusters. */
  async knownRoles(): Promise<Map<string, string[]>> {
    const cached = this.fresh(this.roles);
    if (cached) return cached;
    const roles = new Map<string, string[]>();
    const add = (arn: string | undefined, cluster: string) => {
      const name = roleName(arn);
      if (name) roles.set(name, [...new Set([...(roles.get(name) ?? []), cluster])]);
    };
    for (const cluster of this.clusters) {
      for (const arn of await this.nodeRoles(cluster)) add(arn, cluster);
      add(
        (await cniRole(this.eks, cluster, { instanceId: 'none', securityGroupIds: [] } as NodeContext)).roleArn,
        cluster,
      );
    }
    this.roles = { at: this.now(), value: roles };
    return roles;
  }

  private async nodeRoles(cluster: string): Promise<string[]> {
    const arns: string[] = [];
    for await (const page of paginateListNodegroups({ client: this.eks }, { clusterName: cluster })) {
      for (const nodegroupName of page.nodegroups ?? []) {
        const ng = await this.eks.send(new DescribeNodegroupCommand({ clusterName: cluster, nodegroupName }));
        if (ng.nodegroup?.nodeRole) arns.push(ng.nodegroup.nodeRole);
      }
    }
    let described = 0;
    for await (const page of paginateListAccessEntries({ client: this.eks }, { clusterName: cluster })) {
      for (const principalArn of page.accessEntries ?? []) {
        if (++described > MAX_ACCESS_ENTRIES || !principalArn.includes(':role/')) continue;
        const e = await this.eks.send(new DescribeAccessEntryCommand({ clusterName: cluster, principalArn }));
        if (NODE_ENTRY_TYPES.has(e.accessEntry?.type ?? '')) arns.push(principalArn);
      }
    }
    return arns;
  }

  /** Security groups of the ECR (api, dkr) and S3 interface endpoints in the account's region. */
  async endpointGroups(): Promise<Set<string>> {
    const cached = this.fresh(this.groups);
    if (cached) return cached;
    const groups = new Set<string>();
    for await (const page of paginateDescribeVpcEndpoints({ client: this.ec2 }, {})) {
      for (const v of page.VpcEndpoints ?? []) {
        if (!PULL_ENDPOINT_SERVICE.test(v.ServiceName ?? '')) continue;
        for (const g of v.Groups ?? []) if (g.GroupId) groups.add(g.GroupId);
      }
    }
    this.groups = { at: this.now(), value: groups };
    return groups;
  }

  /** The instance (and its cluster) an event names directly or through its network interface. */
  async node(instanceId?: string, eniId?: string): Promise<{ instanceId: string; cluster?: string } | undefined> {
    let id = instanceId;
    if (!id && eniId) {
      const r = await this.ec2.send(new DescribeNetworkInterfacesCommand({ NetworkInterfaceIds: [eniId] }));
      id = r.NetworkInterfaces?.[0]?.Attachment?.InstanceId;
    }
    if (!id) return undefined;
    const r = await this.ec2.send(new DescribeInstancesCommand({ InstanceIds: [id] }));
    const instance = r.Reservations?.[0]?.Instances?.[0];
    return { instanceId: id, cluster: instance ? clusterOfTags(instance.Tags) : undefined };
  }
}
