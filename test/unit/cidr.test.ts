import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CidrError, formatIpv4, freePrefixBlocks, parseCidr, parseIpv4 } from '../../lambdas/core/remedy/cidr.js';
import { fuzz } from '../support/fuzz.js';

const none = { addresses: [], prefixes: [], reservations: [] };

describe('IPv4 and CIDR parsing', () => {
  it('round-trips addresses and normalises CIDRs to their network address', () => {
    expect(formatIpv4(parseIpv4('10.0.255.7'))).toBe('10.0.255.7');
    expect(parseCidr('10.0.3.17/28')).toEqual({ start: parseIpv4('10.0.3.16'), prefix: 28, size: 16 });
  });

  it.each(['10.0.0', '10.0.0.256', '10.0.0.1/33', 'a.b.c.d', '10.0.0.-1'])('rejects %s', (bad) => {
    expect(() => parseCidr(bad)).toThrow(CidrError);
  });
});

describe('free /28 blocks', () => {
  it.each([16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28])(
    'an empty /%i loses exactly the first and last block to the AWS-reserved addresses',
    (prefix) => {
      const r = freePrefixBlocks({ subnetCidr: `10.0.0.0/${prefix}`, ...none });
      const total = 2 ** (32 - prefix) / 16;
      expect(r.totalBlocks).toBe(total);
      expect(r.freeBlocks).toBe(prefix === 28 ? 0 : total - 2);
      expect(r.freeAddresses).toBe(2 ** (32 - prefix) - 5);
    },
  );

  it('a /28 subnet can never take a prefix: its only block holds the reserved addresses', () => {
    expect(freePrefixBlocks({ subnetCidr: '10.0.0.16/28', ...none }).freeBlocks).toBe(0);
  });

  it('blocks at the start and the end are lost to the first four and the last address', () => {
    const r = freePrefixBlocks({ subnetCidr: '10.0.0.0/26', ...none });
    expect(r.sample).toEqual(['10.0.0.16/28', '10.0.0.32/28']);
  });

  it('one address anywhere in a block takes the whole block', () => {
    const r = freePrefixBlocks({ subnetCidr: '10.0.0.0/26', addresses: ['10.0.0.31'], prefixes: [], reservations: [] });
    expect(r.sample).toEqual(['10.0.0.32/28']);
  });

  it('a fragmented subnet has many free addresses and no free block', () => {
    // One address in every /28: 15 of 16 addresses free everywhere, no aligned block.
    const addresses = Array.from({ length: 256 }, (_, i) => formatIpv4(parseIpv4('10.0.0.0') + i * 16 + 8));
    const r = freePrefixBlocks({ subnetCidr: '10.0.0.0/20', addresses, prefixes: [], reservations: [] });
    expect(r.freeBlocks).toBe(0);
    expect(r.freeAddresses).toBe(4096 - 5 - 256);
  });

  it('explicit reservations block prefixes; prefix reservations stay open to them but not to single IPs', () => {
    const explicit = freePrefixBlocks({
      subnetCidr: '10.0.0.0/24',
      addresses: [],
      prefixes: [],
      reservations: [{ cidr: '10.0.0.64/26', type: 'explicit' }],
    });
    const prefix = freePrefixBlocks({
      subnetCidr: '10.0.0.0/24',
      addresses: [],
      prefixes: [],
      reservations: [{ cidr: '10.0.0.64/26', type: 'prefix' }],
    });
    expect(explicit.freeBlocks).toBe(14 - 4);
    expect(prefix.freeBlocks).toBe(14);
    expect(explicit.freeAddresses).toBe(prefix.freeAddresses);
  });

  it('reservations overlapping ENI addresses and delegated prefixes are not counted twice', () => {
    const r = freePrefixBlocks({
      subnetCidr: '10.0.0.0/24',
      addresses: ['10.0.0.70', '10.0.0.71'],
      prefixes: ['10.0.0.64/28'],
      reservations: [{ cidr: '10.0.0.64/27', type: 'explicit' }],
    });
    expect(r.freeAddresses).toBe(256 - 5 - 32);
    expect(r.freeBlocks).toBe(14 - 2);
  });

  it('ignores addresses, prefixes and reservations outside the subnet', () => {
    const r = freePrefixBlocks({
      subnetCidr: '10.0.1.0/24',
      addresses: ['10.0.0.5', '10.0.2.9'],
      prefixes: ['10.0.0.16/28'],
      reservations: [{ cidr: '10.0.0.0/16', type: 'explicit' }],
    });
    expect(r.freeBlocks).toBe(0);
    const r2 = freePrefixBlocks({
      subnetCidr: '10.0.1.0/24',
      addresses: ['10.0.0.5', '10.0.2.9'],
      prefixes: ['10.0.0.16/28'],
      reservations: [],
    });
    expect(r2.freeBlocks).toBe(14);
  });

  it('agrees with a brute-force count on random usage', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 22, max: 26 }),
        fc.array(fc.nat(1023), { maxLength: 60 }),
        fc.array(fc.nat(63), { maxLength: 6 }),
        (prefix, ips, blocks) => {
          const size = 2 ** (32 - prefix);
          const base = parseIpv4('10.20.0.0');
          const addresses = ips.filter((i) => i < size).map((i) => formatIpv4(base + i));
          const prefixes = blocks.filter((b) => b * 16 < size).map((b) => `${formatIpv4(base + b * 16)}/28`);
          const busy = new Set<number>([0, 1, 2, 3, size - 1]);
          for (const a of addresses) busy.add(parseIpv4(a) - base);
          for (const p of prefixes) for (let k = 0; k < 16; k++) busy.add(parseIpv4(p.split('/')[0]) - base + k);
          let free = 0;
          for (let b = 0; b < size; b += 16) if (![...Array(16).keys()].some((k) => busy.has(b + k))) free++;
          const r = freePrefixBlocks({ subnetCidr: `10.20.0.0/${prefix}`, addresses, prefixes, reservations: [] });
          expect(r.freeBlocks).toBe(free);
          expect(r.freeAddresses).toBe(size - busy.size);
        },
      ),
      fuzz(200),
    );
  });
});
