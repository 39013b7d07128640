/**
 * IPv4 / CIDR arithmetic for subnet capacity. EC2 reports free addresses but not fragmentation: a
 * prefix delegation needs a free, /28-aligned block of 16 addresses, which may not exist even when
 * hundreds of single addresses are free.
 */

export interface Cidr {
  /** First address as an unsigned 32-bit integer. */
  readonly start: number;
  readonly prefix: number;
  /** Number of addresses. */
  readonly size: number;
}

export class CidrError extends Error {
  override readonly name = 'CidrError';
}

export function parseIpv4(ip: string): number {
  const parts = ip.split('.');
  if (parts.length !== 4) throw new CidrError(`not an IPv4 address: ${ip}`);
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) throw new CidrError(`not an IPv4 address: ${ip}`);
    n = n * 256 + Number(p);
  }
  return n;
}

export function formatIpv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

export function parseCidr(cidr: string): Cidr {
  const [ip, len] = cidr.split('/');
  const prefix = len === undefined ? 32 : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) throw new CidrError(`not an IPv4 CIDR: ${cidr}`);
  const size = 2 ** (32 - prefix);
  const start = Math.floor(parseIpv4(ip) / size) * size;
  return { start, prefix, size };
}

export function formatCidr(c: Cidr): string {
  return `${formatIpv4(c.start)}/${c.prefix}`;
}

/** What occupies addresses of a subnet. */
export interface SubnetUsage {
  /** Subnet CIDR block (IPv4). */
  readonly subnetCidr: string;
  /** Every private IPv4 address on every ENI in the subnet (primary and secondary). */
  readonly addresses: readonly string[];
  /** Delegated IPv4 prefixes (/28) on ENIs in the subnet. */
  readonly prefixes: readonly string[];
  /**
   * Subnet CIDR reservations. `prefix`: EC2 takes delegated prefixes only from there (so they stay
   * available to prefix delegation, but not to single secondary IPs). `explicit`: only assigned by hand.
   */
  readonly reservations: readonly { readonly cidr: string; readonly type: 'prefix' | 'explicit' }[];
}

export interface FreeBlocks {
  readonly subnet: string;
  /** /28 blocks in the subnet (0 when the subnet is smaller than /28). */
  readonly totalBlocks: number;
  /** Aligned /28 blocks with no used, reserved or AWS-reserved address. */
  readonly freeBlocks: number;
  /** Up to `sampleLimit` free blocks, lowest first. */
  readonly sample: readonly string[];
  /** Addresses neither used, delegated, reserved nor AWS-reserved (what single secondary IPs can use). */
  readonly freeAddresses: number;
}

/** AWS reserves the first four addresses and the last address of every subnet. */
export function awsReserved(subnet: Cidr): [number, number][] {
  return [
    [subnet.start, subnet.start + Math.min(4, subnet.size) - 1],
    [subnet.start + subnet.size - 1, subnet.start + subnet.size - 1],
  ];
}

/** Merges closed intervals [a, b] into a sorted, disjoint list. */
function merge(intervals: [number, number][]): [number, number][] {
  intervals.sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of intervals) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]); // a copy: callers keep their intervals
  }
  return out;
}

/**
 * Free /28-aligned blocks of a subnet. Anything outside the subnet is ignored (an ENI address of
 * another subnet cannot block this one). O(n log n) in the number of used addresses.
 */
export function freePrefixBlocks(usage: SubnetUsage, sampleLimit = 10): FreeBlocks {
  const subnet = parseCidr(usage.subnetCidr);
  const end = subnet.start + subnet.size - 1;
  const clip = (cidr: string): [number, number] | undefined => {
    const r = parseCidr(cidr);
    const a = Math.max(r.start, subnet.start);
    const b = Math.min(r.start + r.size - 1, end);
    return a <= b ? [a, b] : undefined;
  };
  // Busy for a prefix: AWS-reserved, used addresses, delegated prefixes, explicit reservations.
  const used: [number, number][] = [...awsReserved(subnet)];
  for (const a of usage.addresses) {
    const n = parseIpv4(a);
    if (n >= subnet.start && n <= end) used.push([n, n]);
  }
  for (const c of usage.prefixes) {
    const r = clip(c);
    if (r) used.push(r);
  }
  const prefixReserved: [number, number][] = [];
  for (const res of usage.reservations) {
    const r = clip(res.cidr);
    if (r) (res.type === 'explicit' ? used : prefixReserved).push(r);
  }
  const busy = merge([...used]);
  const busyForAddresses = merge([...used, ...prefixReserved]);
  const usedCount = busyForAddresses.reduce((n, [a, b]) => n + (b - a + 1), 0);
  const totalBlocks = subnet.prefix <= 28 ? subnet.size / 16 : 0;
  let free = 0;
  const sample: string[] = [];
  let i = 0;
  for (let block = subnet.start; block + 15 <= end && totalBlocks > 0; block += 16) {
    while (i < busy.length && busy[i][1] < block) i++;
    const overlaps = i < busy.length && busy[i][0] <= block + 15;
    if (!overlaps) {
      free++;
      if (sample.length < sampleLimit) sample.push(`${formatIpv4(block)}/28`);
    }
  }
  return { subnet: formatCidr(subnet), totalBlocks, freeBlocks: free, sample, freeAddresses: subnet.size - usedCount };
}

/** Whether a CIDR lies inside any of the given ones. */
function inside(c: Cidr, of: readonly Cidr[]): boolean {
  return of.some((o) => c.start >= o.start && c.start + c.size <= o.start + o.size);
}

/**
 * The largest aligned range made only of free /28 blocks that no prefix reservation protects yet:
 * what a new prefix-type reservation can claim without touching a used address. Undefined when the
 * subnet has no such block (then a reservation cannot help).
 */
export function reservableRange(usage: SubnetUsage): { cidr: string; blocks: number } | undefined {
  const subnet = parseCidr(usage.subnetCidr);
  const all = freePrefixBlocks(usage, Number.MAX_SAFE_INTEGER).sample.map(parseCidr);
  const reserved = usage.reservations.filter((r) => r.type === 'prefix').map((r) => parseCidr(r.cidr));
  const open = new Set(all.filter((b) => !inside(b, reserved)).map((b) => b.start));
  if (open.size === 0) return undefined;
  for (let prefix = Math.max(subnet.prefix + 1, 16); prefix <= 28; prefix++) {
    const size = 2 ** (32 - prefix);
    for (let start = subnet.start; start + size <= subnet.start + subnet.size; start += size) {
      let ok = true;
      for (let b = start; b < start + size && ok; b += 16) ok = open.has(b);
      if (ok) return { cidr: formatCidr({ start, prefix, size }), blocks: size / 16 };
    }
  }
  return undefined;
}

/** Free /28 blocks inside prefix reservations (kept for prefix delegation, out of reach of single IPs). */
export function protectedFreeBlocks(usage: SubnetUsage): number {
  const reserved = usage.reservations.filter((r) => r.type === 'prefix').map((r) => parseCidr(r.cidr));
  return freePrefixBlocks(usage, Number.MAX_SAFE_INTEGER).sample.filter((b) => inside(parseCidr(b), reserved)).length;
}
