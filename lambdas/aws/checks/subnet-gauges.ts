import type { Finding } from '../../core/contract/findings.js';

/** A subnet's free address space as the network checks measured it, for the operations dashboard. */
export interface SubnetGauge {
  readonly metric: 'SubnetFreeIps' | 'SubnetFreePrefixBlocks';
  readonly subnet: string;
  readonly value: number;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown) => (typeof v === 'string' && /^subnet-[0-9a-f]{8,17}$/.test(v) ? v : undefined);

/**
 * Free IPv4 addresses and free aligned /28 blocks of the subnets in `findings` (subnet.free-ips,
 * subnet.free-prefix-blocks; their evidence as network-checks.ts writes it). A check that could not
 * run measured nothing and gives no gauge.
 */
export function subnetGauges(findings: readonly Finding[]): SubnetGauge[] {
  return findings.flatMap((f): SubnetGauge[] => {
    if (f.status === 'error') return [];
    const e = f.evidence;
    if (f.id === 'subnet.free-ips') {
      const subnet = str(e.subnet);
      const value = num(e.availableIpAddressCount);
      return subnet && value !== undefined ? [{ metric: 'SubnetFreeIps', subnet, value }] : [];
    }
    if (f.id === 'subnet.free-prefix-blocks') {
      const subnet = str(e.subnetId);
      const value = num(e.freeBlocks);
      return subnet && value !== undefined ? [{ metric: 'SubnetFreePrefixBlocks', subnet, value }] : [];
    }
    return [];
  });
}
