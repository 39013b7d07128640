import { describe, expect, it } from 'vitest';
import { partitionOf, partitionOfArn } from '../../lambdas/core/contract/partition.js';
import { namesPrincipal } from '../../lambdas/core/policy/iam-policy.js';

describe('partitions (no hard-coded arn:aws:)', () => {
  it('maps China and GovCloud regions to their partitions', () => {
    expect(partitionOf('cn-north-1')).toBe('aws-cn');
    expect(partitionOf('us-gov-west-1')).toBe('aws-us-gov');
    expect(partitionOf('eu-west-1')).toBe('aws');
    expect(partitionOfArn('arn:aws-cn:iam::111122223333:role/x')).toBe('aws-cn');
  });

  it('a repository policy naming the China account root names a role of that account', () => {
    const role = 'arn:aws-cn:iam::111122223333:role/eks-node';
    const statement = { Effect: 'Allow', Principal: { AWS: 'arn:aws-cn:iam::111122223333:root' }, Action: 'ecr:*' };
    expect(namesPrincipal(statement as never, role)).toBe(true);
  });
});
