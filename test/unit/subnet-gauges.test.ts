import { describe, expect, it } from 'vitest';
import { subnetGauges } from '../../lambdas/aws/checks/subnet-gauges.js';
import { finding } from '../../lambdas/core/contract/findings.js';
import { verificationFailed } from '../../lambdas/core/voices/notice.js';

describe('subnet gauges for the dashboard', () => {
  it('free IPv4 addresses and free aligned /28 blocks per subnet, from the network checks’ evidence', () => {
    const gauges = subnetGauges([
      finding('subnet.free-ips', 'warn', 's', { subnet: 'subnet-0a1b2c3d4e5f67890', availableIpAddressCount: 19 }),
      finding('subnet.free-prefix-blocks', 'fail', 's', { subnetId: 'subnet-0a1b2c3d4e5f67890', freeBlocks: 0 }),
      finding('vpc.endpoint.sg-443', 'pass', 's', { subnet: 'subnet-0a1b2c3d4e5f67890' }),
    ]);
    expect(gauges).toEqual([
      { metric: 'SubnetFreeIps', subnet: 'subnet-0a1b2c3d4e5f67890', value: 19 },
      { metric: 'SubnetFreePrefixBlocks', subnet: 'subnet-0a1b2c3d4e5f67890', value: 0 },
    ]);
  });

  it('a check that could not run, or evidence without a subnet id, measures nothing', () => {
    expect(
      subnetGauges([
        finding('subnet.free-ips', 'error', 'check could not run', { subnet: 'subnet-0a1b2c3d4e5f67890' }),
        finding('subnet.free-ips', 'pass', 's', { subnet: 'not-a-subnet', availableIpAddressCount: 5 }),
        finding('subnet.free-prefix-blocks', 'pass', 's', { subnetId: 'subnet-0a1b2c3d4e5f67890' }),
      ]),
    ).toEqual([]);
  });
});

describe('verification failures for the alarm', () => {
  it.each([
    ['repaired, verification failed: 2 new lines', true],
    ['collect-logs done; restart-runtime: repaired, verification failed: PIDs at 98%', true],
    ['attach-managed-policy rolled-back: the check still fails', true],
    ['restart-aws-node rollback-failed: IrreversibleActionError', true],
    ['repaired and verified', false],
    ['action failed (Failed)', false],
    ['workflow failed', false],
    ['diagnosed; action recommended', false],
  ])('%s → %s', (outcome, failed) => {
    expect(verificationFailed(outcome)).toBe(failed);
  });
});
