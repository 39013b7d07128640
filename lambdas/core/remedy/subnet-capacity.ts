import { awsReserved, formatIpv4, freePrefixBlocks, parseCidr, parseIpv4, reservableRange } from './cidr.js';

/**
 * Pod-subnet capacity, continuously (issue 35, part 2), pure: every /28 block of a subnet
 * classified, a fragmentation score, the ENIs' owners, a forecast of the free aligned /28 blocks
 * from their trend, and what to propose before they run out (a prefix CIDR reservation, node drains
 * ranked by the blocks they give back, deletion of orphaned ENIs). Built on cidr.ts. Facts are EC2's
 * answers (DescribeNetworkInterfaces, DescribeSubnetCidrReservations); nothing here reads a log.
 */

/** One ENI of the subnet as DescribeNetworkInterfaces returns it (the fields used). */
export interface EniView {
  readonly id: string;
  /** `in-use`, `available`, … */
  readonly status: string;
  /** `interface` (an ordinary ENI), `vpc_endpoint`, `nat_gateway`, `lambda`, `network_load_balancer`, … */
  readonly interfaceType?: string;
  /** Created and managed by an AWS service on the account's behalf. */
  readonly requesterManaged?: boolean;
  readonly requesterId?: string;
  readonly description?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly instanceId?: string;
  readonly deviceIndex?: number;
  readonly addresses: readonly string[];
  /** Delegated IPv4 prefixes (/28). */
  readonly prefixes: readonly string[];
}

export interface SubnetFacts {
  readonly subnetId: string;
  readonly cidr: string;
  readonly reservations: readonly { readonly cidr: string; readonly type: 'prefix' | 'explicit' }[];
  readonly enis: readonly EniView[];
  /** The ENI read stopped at its page bound: the counts are a lower bound and nothing is proposed. */
  readonly truncated?: boolean;
}

export const BLOCK_STATES = ['free', 'fragmented', 'full', 'reserved', 'prefix-delegated', 'aws-reserved'] as const;
export type BlockState = (typeof BLOCK_STATES)[number];

export const ENI_OWNERS = [
  'pods',
  'node',
  'orphaned',
  'orphaned-unattributed',
  'other-cluster',
  'other-service',
  'other',
] as const;
export type EniOwner = (typeof ENI_OWNERS)[number];

/** The VPC CNI's tags on the ENIs it creates (amazon-vpc-cni-k8s: ipamd's ENI tagging). */
export const CNI_CLUSTER_TAG = 'cluster.k8s.amazonaws.com/name';
export const CNI_CREATED_AT_TAG = 'node.k8s.amazonaws.com/createdAt';
const CNI_DESCRIPTION = /^aws-K8S-i-[0-9a-f]{8,17}$/;

/** Who owns an ENI, for cluster `cluster` whose nodes are `nodes` (instance ids from EC2). */
export function eniOwner(e: EniView, cluster: string, nodes: ReadonlySet<string>): EniOwner {
  const tagged = e.tags[CNI_CLUSTER_TAG];
  if (tagged !== undefined && tagged !== cluster) return 'other-cluster';
  if (e.requesterManaged || (e.interfaceType !== undefined && e.interfaceType !== 'interface')) return 'other-service';
  const cni = CNI_DESCRIPTION.test(e.description ?? '');
  if (e.status === 'available') return cni && tagged === cluster ? 'orphaned' : cni ? 'orphaned-unattributed' : 'other';
  if (e.instanceId && nodes.has(e.instanceId)) return e.deviceIndex === 0 ? 'node' : 'pods';
  return 'other';
}

export interface BlockCounts extends Readonly<Record<BlockState, number>> {}

export interface SubnetAnalysis {
  readonly subnetId: string;
  readonly cidr: string;
  readonly blocks: BlockCounts;
  readonly totalBlocks: number;
  readonly freeAlignedBlocks: number;
  readonly freeAddresses: number;
  /** 0: every free address is in a free aligned /28; 1: none is (free space prefix delegation cannot use). */
  readonly fragmentation: number;
  readonly owners: Readonly<Record<EniOwner, number>>;
  /** Clusters other than this one with ENIs here (a shared subnet). */
  readonly sharedWith: readonly string[];
  readonly truncated: boolean;
}

/** The state of each /28 block: AWS-reserved, delegated, used (full or fragmented), reserved, free. */
export function blockStates(f: SubnetFacts): BlockState[] {
  const subnet = parseCidr(f.cidr);
  if (subnet.prefix > 28) return [];
  const used = new Set<number>();
  for (const e of f.enis) for (const a of e.addresses) used.add(parseIpv4(a));
  const delegated = new Set(f.enis.flatMap((e) => e.prefixes).map((p) => parseCidr(p).start));
  const reserved = f.reservations.map((r) => parseCidr(r.cidr));
  const [[first], [last]] = awsReserved(subnet) as [[number, number], [number, number]];
  const out: BlockState[] = [];
  for (let b = subnet.start; b + 15 < subnet.start + subnet.size; b += 16) {
    let n = 0;
    for (let a = b; a < b + 16; a++) if (used.has(a)) n++;
    if (b === first || b + 15 === last) out.push('aws-reserved');
    else if (delegated.has(b)) out.push('prefix-delegated');
    else if (n === 16) out.push('full');
    else if (n > 0) out.push('fragmented');
    else if (reserved.some((r) => b >= r.start && b < r.start + r.size)) out.push('reserved');
    else out.push('free');
  }
  return out;
}

export function analyseSubnet(f: SubnetFacts, cluster: string, nodes: ReadonlySet<string>): SubnetAnalysis {
  const states = blockStates(f);
  const blocks = Object.fromEntries(BLOCK_STATES.map((s) => [s, states.filter((x) => x === s).length])) as BlockCounts;
  const free = freePrefixBlocks({
    subnetCidr: f.cidr,
    addresses: f.enis.flatMap((e) => e.addresses),
    prefixes: f.enis.flatMap((e) => e.prefixes),
    reservations: f.reservations,
  });
  const owners = Object.fromEntries(ENI_OWNERS.map((o) => [o, 0])) as Record<EniOwner, number>;
  for (const e of f.enis) owners[eniOwner(e, cluster, nodes)] += 1;
  const sharedWith = [
    ...new Set(f.enis.map((e) => e.tags[CNI_CLUSTER_TAG]).filter((c): c is string => !!c && c !== cluster)),
  ].sort();
  const fragmentation = free.freeAddresses > 0 ? 1 - Math.min(1, (free.freeBlocks * 16) / free.freeAddresses) : 0;
  return {
    subnetId: f.subnetId,
    cidr: f.cidr,
    blocks,
    totalBlocks: free.totalBlocks,
    freeAlignedBlocks: free.freeBlocks,
    freeAddresses: free.freeAddresses,
    fragmentation: Math.round(fragmentation * 1000) / 1000,
    owners,
    sharedWith,
    truncated: f.truncated === true,
  };
}

/** One hourly point of a subnet's free aligned /28 blocks. */
export interface CapacityPoint {
  readonly at: number;
  readonly freeAlignedBlocks: number;
}

export interface Forecast {
  /** Least-squares slope, blocks per hour (negative: shrinking). */
  readonly slopePerHour: number;
  /** Hours until no free aligned /28 is left at that slope; undefined when not shrinking. */
  readonly hoursToExhaustion?: number;
  /** The alarm fires: exhaustion within the horizon. */
  readonly fires: boolean;
  readonly points: number;
}

/**
 * The forecast, stated: a least-squares line through the last `points` hourly values of free aligned
 * /28 blocks (at least 3), projected to zero; it fires when zero comes within `horizonHours` (or is
 * already there). Fewer than 3 points: no forecast, never fires.
 */
export function forecastExhaustion(points: readonly CapacityPoint[], horizonHours: number): Forecast {
  const n = points.length;
  if (n < 3) return { slopePerHour: 0, fires: false, points: n };
  const xs = points.map((p) => (p.at - (points[0]?.at ?? 0)) / 3_600_000);
  const ys = points.map((p) => p.freeAlignedBlocks);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
  const slope = sxx > 0 ? xs.reduce((a, x, i) => a + (x - mx) * ((ys[i] ?? 0) - my), 0) / sxx : 0;
  const nowValue = ys[n - 1] ?? 0;
  if (nowValue <= 0) return { slopePerHour: slope, hoursToExhaustion: 0, fires: true, points: n };
  if (slope >= 0) return { slopePerHour: slope, fires: false, points: n };
  const hours = nowValue / -slope;
  return {
    slopePerHour: slope,
    hoursToExhaustion: Math.round(hours * 10) / 10,
    fires: hours <= horizonHours,
    points: n,
  };
}

/** Nodes to drain, each with the /28 blocks its drain gives back (only blocks it alone occupies). */
export function rankDrains(
  f: SubnetFacts,
  cluster: string,
  nodes: ReadonlySet<string>,
): { readonly instanceId: string; readonly blocks: number }[] {
  const subnet = parseCidr(f.cidr);
  const holder = new Map<number, string | null>();
  for (const e of f.enis) {
    const owner = eniOwner(e, cluster, nodes);
    const node = (owner === 'pods' || owner === 'node') && e.instanceId ? e.instanceId : null;
    for (const a of e.addresses) {
      const block = Math.floor((parseIpv4(a) - subnet.start) / 16);
      const prev = holder.get(block);
      // A block with an address pod-doctor cannot attribute to one node of this cluster gives nothing back.
      holder.set(block, prev === undefined ? node : prev === node ? node : null);
    }
  }
  const counts = new Map<string, number>();
  for (const [block, node] of holder)
    if (node && !isReservedBlock(subnet, block)) counts.set(node, (counts.get(node) ?? 0) + 1);
  return [...counts.entries()]
    .map(([instanceId, blocks]) => ({ instanceId, blocks }))
    .sort((a, b) => b.blocks - a.blocks || a.instanceId.localeCompare(b.instanceId));
}

function isReservedBlock(subnet: ReturnType<typeof parseCidr>, block: number): boolean {
  return block === 0 || block === subnet.size / 16 - 1;
}

/** Orphaned ENIs of this cluster older than `minAgeMs` (their own createdAt tag): deletion candidates, with evidence. */
export function orphanedEnis(
  f: SubnetFacts,
  cluster: string,
  nodes: ReadonlySet<string>,
  o: { readonly now: number; readonly minAgeMs: number },
): { readonly eniId: string; readonly evidence: Readonly<Record<string, string>> }[] {
  return f.enis
    .filter((e) => eniOwner(e, cluster, nodes) === 'orphaned')
    .filter((e) => {
      const created = Date.parse(e.tags[CNI_CREATED_AT_TAG] ?? '');
      return Number.isFinite(created) && o.now - created >= o.minAgeMs;
    })
    .map((e) => ({
      eniId: e.id,
      evidence: {
        status: e.status,
        description: e.description ?? '',
        [CNI_CLUSTER_TAG]: e.tags[CNI_CLUSTER_TAG] ?? '',
        [CNI_CREATED_AT_TAG]: e.tags[CNI_CREATED_AT_TAG] ?? '',
        addresses: e.addresses.join(' '),
      },
    }));
}

export type CapacityProposal =
  | {
      readonly kind: 'create-cidr-reservation';
      readonly subnetId: string;
      readonly cidr: string;
      readonly reason: string;
    }
  | { readonly kind: 'drain-node'; readonly instanceId: string; readonly blocks: number; readonly reason: string }
  | {
      readonly kind: 'delete-orphaned-eni';
      readonly eniId: string;
      readonly evidence: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'none'; readonly reason: string };

/**
 * What to propose for one subnet, all through the door (drains and deletions always approved): a
 * prefix reservation over the largest free aligned range while one exists and the forecast fires;
 * drains ranked by blocks given back once no free aligned /28 is left; orphaned ENIs of this cluster.
 * A truncated read or a subnet other clusters share never yields a drain or a deletion of what
 * pod-doctor cannot attribute (attributable-only is the rule everywhere; shared subnets are named).
 */
export function capacityProposals(
  f: SubnetFacts,
  a: SubnetAnalysis,
  forecast: Forecast,
  o: {
    readonly cluster: string;
    readonly nodes: ReadonlySet<string>;
    readonly now: number;
    readonly orphanAgeMs: number;
  },
): CapacityProposal[] {
  if (a.truncated)
    return [
      { kind: 'none', reason: `${f.subnetId}: the ENI read was cut at its bound: no proposal on a partial view` },
    ];
  const out: CapacityProposal[] = [];
  const range = reservableRange({
    subnetCidr: f.cidr,
    addresses: f.enis.flatMap((e) => e.addresses),
    prefixes: f.enis.flatMap((e) => e.prefixes),
    reservations: f.reservations,
  });
  if (forecast.fires && range)
    out.push({
      kind: 'create-cidr-reservation',
      subnetId: f.subnetId,
      cidr: range.cidr,
      reason: `${a.freeAlignedBlocks} free aligned /28 left, ${forecast.hoursToExhaustion ?? 0} h to none at ${forecast.slopePerHour.toFixed(2)}/h: reserve ${range.cidr} (${range.blocks} blocks) for prefixes before it fragments further`,
    });
  if (forecast.fires && a.freeAlignedBlocks === 0)
    for (const d of rankDrains(f, o.cluster, o.nodes).slice(0, 3))
      out.push({
        kind: 'drain-node',
        ...d,
        reason: `draining ${d.instanceId} gives back ${d.blocks} /28 block(s) only its pods hold`,
      });
  for (const e of orphanedEnis(f, o.cluster, o.nodes, { now: o.now, minAgeMs: o.orphanAgeMs }))
    out.push({ kind: 'delete-orphaned-eni', ...e });
  return out.length ? out : [{ kind: 'none', reason: `${f.subnetId}: nothing to propose` }];
}

/** The block's first address, for display. */
export const blockCidr = (subnetCidr: string, index: number) =>
  `${formatIpv4(parseCidr(subnetCidr).start + index * 16)}/28`;
