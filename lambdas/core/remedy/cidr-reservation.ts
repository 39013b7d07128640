import type { ApplyPath, Check } from './apply-path.js';
import { freePrefixBlocks, protectedFreeBlocks, reservableRange, type SubnetUsage } from './cidr.js';
import type { RecheckResult } from './managed-policy.js';

/** Reserve the subnet's free aligned space for prefix delegation (type prefix). */
export interface CidrReservationTarget {
  readonly kind: 'create-cidr-reservation';
  readonly subnetId: string;
  readonly description: string;
}

export interface CidrReservationPort {
  /** The subnet's CIDR, ENI addresses, delegated prefixes and reservations (with ids). */
  usage(subnetId: string): Promise<SubnetUsage & { readonly reservationIds: Record<string, string> }>;
  /** Creates a prefix-type reservation; returns its id. */
  reserve(subnetId: string, cidr: string, description: string): Promise<string>;
  release(reservationId: string): Promise<void>;
  recheck(): Promise<RecheckResult>;
}

export interface CidrReservationState {
  readonly usage: SubnetUsage;
  readonly check: RecheckResult;
}

const facts = (u: SubnetUsage) => ({
  free: freePrefixBlocks(u).freeBlocks,
  protectedFree: protectedFreeBlocks(u),
  range: reservableRange(u),
});

export function cidrReservationPath(
  t: CidrReservationTarget,
  port: CidrReservationPort,
): ApplyPath<CidrReservationState> {
  let cidr: string | undefined;
  return {
    id: 'create-cidr-reservation',
    change: `create a prefix-type CIDR reservation over the free aligned space of ${t.subnetId}`,
    async read() {
      const [usage, check] = await Promise.all([port.usage(t.subnetId), port.recheck()]);
      return { usage, check };
    },
    causeHolds(s): Check {
      const f = facts(s.usage);
      if (s.check.status === 'pass')
        return { ok: false, reason: `subnet.free-prefix-blocks passes now (${s.check.summary})` };
      if (!f.range)
        return {
          ok: false,
          cannot: true,
          reason: `${t.subnetId} has no free aligned /28 outside prefix reservations: a reservation cannot help; add a subnet for the node group or move aws-node to secondary IPs`,
        };
      cidr = f.range.cidr;
      return {
        ok: true,
        reason: `${s.check.summary}; ${f.range.cidr} (${f.range.blocks} free /28) can be reserved for prefixes`,
      };
    },
    planned: (s) => ({
      usage: { ...s.usage, reservations: [...s.usage.reservations, { cidr: cidr ?? '', type: 'prefix' }] },
      check: s.check,
    }),
    render(s) {
      const f = facts(s.usage);
      return [
        `subnet ${t.subnetId} ${s.usage.subnetCidr}: free /28 blocks ${f.free}`,
        `free /28 blocks protected by prefix reservations: ${f.protectedFree}`,
        ...s.usage.reservations.map((r) => `reservation ${r.type} ${r.cidr}`).sort(),
      ];
    },
    async apply() {
      if (!cidr) throw new Error('no reservable range was established before the change');
      const id = await port.reserve(t.subnetId, cidr, t.description);
      return { reservationId: id, cidr };
    },
    async verify(s) {
      const f = facts(s.usage);
      const present = s.usage.reservations.some((r) => r.type === 'prefix' && r.cidr === cidr);
      if (!present) return { ok: false, reason: `no prefix reservation ${cidr} on ${t.subnetId} after the change` };
      if (f.protectedFree === 0)
        return { ok: false, reason: `the reservation ${cidr} protects no free /28 block (addresses were taken)` };
      return {
        ok: true,
        reason: `${cidr} reserved for prefixes: ${f.protectedFree} free /28 block(s) now kept for prefix delegation`,
        evidence: { freeBlocks: f.free, protectedFreeBlocks: f.protectedFree },
      };
    },
    async rollback(applied) {
      await port.release(applied.reservationId ?? '');
    },
  };
}
