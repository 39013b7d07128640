import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../lambdas/core/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/filter-pattern.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';

/**
 * Node and CNI causes read from new field sources (test/fixtures/field/field-node-2.jsonl), each test citing the
 * line's source. Every failure line here must also pass the subscription filter built from the catalogue.
 */
const classOf = (m: string) => classifyMessage(m).class;
const passes = compileFilterPattern(buildFilterPattern());

describe('a full subnet is IP exhaustion whatever the cloud names it', () => {
  it("reads Azure's SubnetIsFull code (Karpenter for Azure launching into a full subnet) as ip-exhaustion", () => {
    // https://github.com/Azure/karpenter-provider-azure/issues/734
    for (const line of [
      'ERROR CODE: SubnetIsFull',
      'SubnetIsFull: Subnet /subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/one with address prefix 10.0.0.0/20 does not have enough capacity for 1 IP addresses',
    ]) {
      expect(classOf(line), line).toBe('ip-exhaustion');
      expect(passes(line), line).toBe(true);
    }
  });
});

describe("the Go runtime's failed thread is PID exhaustion only for EAGAIN", () => {
  it('reads newosproc with errno=22 (EINVAL, an amd64 binary under emulation) as no process limit', () => {
    // https://github.com/IBM/istio101/issues/185
    expect(classOf('runtime: failed to create new OS thread (have 2 already; errno=22)')).toBe('unknown');
    expect(classOf('runtime: failed to create new OS thread (have 3 already; errno=1)')).toBe('unknown');
    expect(classOf('runtime: failed to create new OS thread (have 11 already; errno=12)')).toBe('unknown');
  });

  it('keeps errno=11 (EAGAIN) and the bare throw as pid-exhaustion', () => {
    expect(classOf('runtime: failed to create new OS thread (have 772 already; errno=11)')).toBe('pid-exhaustion');
    expect(classOf('fatal error: newosproc')).toBe('pid-exhaustion');
  });
});

describe("the CRI's network status message alone is the plugin not ready", () => {
  it("reads 'Network plugin returns error: cni plugin not initialized' as ipamd-unavailable and lets it through", () => {
    // https://github.com/Azure/karpenter-provider-azure/issues/1639 (containerd internal/cri/server/status.go)
    const line = 'Network plugin returns error: cni plugin not initialized';
    expect(classOf(line)).toBe('ipamd-unavailable');
    expect(passes(line)).toBe(true);
  });
});
