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
