import { describe, expect, it } from 'vitest';
import { runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import type { SubnetUsage } from '../../lambdas/core/remedy/cidr.js';
import type { RecheckResult } from '../../lambdas/core/remedy/managed-policy.js';
import {
  type AddonState,
  prefixDelegation,
  secondaryIpsPath,
  withSecondaryIps,
} from '../../lambdas/core/remedy/secondary-ips.js';

const T = { kind: 'use-secondary-ips' as const, clusterName: 'prod-eu', subnetId: 'subnet-0a1b2c3d4e5f67890' };
/** A /24 with one used address in every /28: no aligned block, 235 single addresses free (5 AWS-reserved). */
const fragmented: SubnetUsage = {
  subnetCidr: '10.0.12.0/24',
  addresses: Array.from({ length: 16 }, (_, i) => `10.0.12.${i * 16 + 5}`),
  prefixes: [],
  reservations: [],
};
const FAIL: RecheckResult = { status: 'fail', summary: 'no free aligned /28 block' };

function port(o: { values?: string; usage?: SubnetUsage; check?: RecheckResult } = {}) {
  const addon: { -readonly [K in keyof AddonState]: AddonState[K] } = {
    status: 'ACTIVE',
    configurationValues: o.values ?? '{"env":{"ENABLE_PREFIX_DELEGATION":"true"}}',
  };
  const calls: string[] = [];
  return {
    calls,
    addon,
    p: {
      addon: async () => ({ ...addon }),
      configure: async (_c: string, v: string) => {
        calls.push(v);
        addon.configurationValues = v;
        return 'update-1';
      },
      usage: async () => o.usage ?? fragmented,
      recheck: async () => o.check ?? FAIL,
    },
  };
}
const run = (x: ReturnType<typeof port>, dryRun = false) =>
  runApplyPath(secondaryIpsPath(T, x.p), { dryRun, now: () => Date.parse('2026-11-29T10:00:00Z') });

describe('use-secondary-ips: the vpc-cni add-on from prefix delegation to secondary IPs', () => {
  it('changes only ENABLE_PREFIX_DELEGATION, keeping every other value', () => {
    expect(
      withSecondaryIps('{"env":{"ENABLE_PREFIX_DELEGATION":"true","WARM_PREFIX_TARGET":"1"},"init":{"env":{}}}'),
    ).toBe('{"env":{"ENABLE_PREFIX_DELEGATION":"false","WARM_PREFIX_TARGET":"1"},"init":{"env":{}}}');
    expect(prefixDelegation('env:\n  ENABLE_PREFIX_DELEGATION: "true"')).toBeUndefined();
  });

  it('applies, verifies, and records the values before for the rollback', async () => {
    const x = port();
    const r = await run(x);
    expect(r.status).toBe('verified');
    expect(r.applied).toEqual({
      updateId: 'update-1',
      configurationValues: '{"env":{"ENABLE_PREFIX_DELEGATION":"true"}}',
    });
    expect(r.verification?.evidence).toMatchObject({ freeBlocks: 0, freeAddresses: 235 });
  });

  it('not applicable when a reservation fits, prefix delegation is set elsewhere, the values are YAML, or addresses are short', async () => {
    const cases: [Parameters<typeof port>[0], RegExp][] = [
      [
        { usage: { ...fragmented, addresses: fragmented.addresses.filter((a) => a !== '10.0.12.21') } },
        /a prefix CIDR reservation fits/,
      ],
      [{ values: '{"env":{"WARM_IP_TARGET":"5"}}' }, /does not set ENABLE_PREFIX_DELEGATION="true" \(absent\)/],
      [{ values: 'env:\n  ENABLE_PREFIX_DELEGATION: "true"' }, /not JSON: change them by hand/],
      [
        {
          usage: {
            ...fragmented,
            addresses: Array.from({ length: 250 }, (_, i) => `10.0.12.${i + 4}`).filter((a) => !a.endsWith('.200')),
          },
        },
        /has only \d free addresses: secondary IPs cannot help either/,
      ],
    ];
    for (const [o, why] of cases) {
      const x = port(o);
      const r = await run(x);
      expect(r.status).toBe('not-applicable');
      expect(r.reason).toMatch(why);
      expect(x.calls).toEqual([]);
    }
  });

  it('not needed once the subnet has free /28 blocks again; a dry run changes nothing', async () => {
    expect((await run(port({ check: { status: 'pass', summary: '3 free /28 blocks' } }))).status).toBe('not-needed');
    const x = port();
    const dry = await run(x, true);
    expect(dry.status).toBe('dry-run');
    expect(dry.diff).toContain('+ ENABLE_PREFIX_DELEGATION: false');
    expect(x.calls).toEqual([]);
  });
});
