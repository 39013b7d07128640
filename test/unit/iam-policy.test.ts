import { describe, expect, it } from 'vitest';
import { compareAddonVersions } from '../../lambdas/aws/checks/eks-checks.js';
import { closest, parseEcrImage } from '../../lambdas/core/contract/images.js';
import {
  evaluate,
  type NamedPolicy,
  namesPrincipal,
  type PolicyDocument,
  wildcardMatch,
} from '../../lambdas/core/policy/iam-policy.js';
import { ECR_READ_ONLY } from '../../local/account-snapshot.js';

const REPO = 'arn:aws:ecr:eu-west-1:111122223333:repository/team/app';
const readOnly: NamedPolicy = { name: 'AmazonEC2ContainerRegistryReadOnly', document: ECR_READ_ONLY as PolicyDocument };

describe('IAM policy evaluation', () => {
  it('allows what a managed policy grants', () => {
    expect(evaluate([readOnly], 'ecr:BatchGetImage', REPO)).toMatchObject({
      decision: 'allowed',
      by: ['AmazonEC2ContainerRegistryReadOnly/#0'],
    });
  });

  it('an explicit Deny wins over any Allow', () => {
    const deny: NamedPolicy = {
      name: 'inline:guard',
      document: { Statement: { Sid: 'NoPulls', Effect: 'Deny', Action: 'ecr:Batch*', Resource: '*' } },
    };
    expect(evaluate([readOnly, deny], 'ecr:BatchGetImage', REPO)).toMatchObject({
      decision: 'denied',
      by: ['inline:guard/NoPulls'],
    });
  });

  it('nothing granted is an implicit deny', () => {
    expect(evaluate([], 'ecr:BatchGetImage', REPO).decision).toBe('implicitly-denied');
  });

  it('NotAction allows everything else and not the listed action', () => {
    const p: NamedPolicy = {
      name: 'p',
      document: { Statement: [{ Effect: 'Allow', NotAction: ['ecr:BatchGetImage'], Resource: '*' }] },
    };
    expect(evaluate([p], 'ecr:GetDownloadUrlForLayer', REPO).decision).toBe('allowed');
    expect(evaluate([p], 'ecr:BatchGetImage', REPO).decision).toBe('implicitly-denied');
  });

  it('a Deny with NotAction denies everything except the listed actions', () => {
    const p: NamedPolicy = {
      name: 'p',
      document: { Statement: [{ Effect: 'Deny', NotAction: 'ecr:GetAuthorizationToken', Resource: '*' }] },
    };
    expect(evaluate([readOnly, p], 'ecr:BatchGetImage', REPO).decision).toBe('denied');
    expect(evaluate([readOnly, p], 'ecr:GetAuthorizationToken', '*').decision).toBe('allowed');
  });

  it('reports conditions instead of guessing them', () => {
    const cond: NamedPolicy = {
      name: 'c',
      document: {
        Statement: [
          {
            Effect: 'Allow',
            Action: 'ecr:*',
            Resource: '*',
            Condition: { StringEquals: { 'aws:SourceVpce': 'vpce-1' } },
          },
        ],
      },
    };
    expect(evaluate([cond], 'ecr:BatchGetImage', REPO).decision).toBe('conditionally-allowed');
    const condDeny: NamedPolicy = {
      name: 'd',
      document: {
        Statement: [
          { Effect: 'Deny', Action: 'ecr:*', Resource: '*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
        ],
      },
    };
    expect(evaluate([readOnly, condDeny], 'ecr:BatchGetImage', REPO).decision).toBe('conditionally-denied');
  });

  it('matches resources with wildcards and NotResource', () => {
    const scoped: NamedPolicy = {
      name: 's',
      document: {
        Statement: [
          { Effect: 'Allow', Action: 'ecr:BatchGetImage', Resource: 'arn:aws:ecr:*:111122223333:repository/team/*' },
        ],
      },
    };
    expect(evaluate([scoped], 'ecr:BatchGetImage', REPO).decision).toBe('allowed');
    expect(
      evaluate([scoped], 'ecr:BatchGetImage', 'arn:aws:ecr:eu-west-1:111122223333:repository/other/app').decision,
    ).toBe('implicitly-denied');
    const notRes: NamedPolicy = {
      name: 'n',
      document: { Statement: [{ Effect: 'Allow', Action: 'ecr:BatchGetImage', NotResource: REPO }] },
    };
    expect(evaluate([notRes], 'ecr:BatchGetImage', REPO).decision).toBe('implicitly-denied');
  });

  it('matches actions case-insensitively and resources case-sensitively', () => {
    expect(wildcardMatch('ECR:batchgetimage', 'ecr:BatchGetImage', true)).toBe(true);
    expect(wildcardMatch('arn:aws:ecr:*:*:repository/Team/*', REPO)).toBe(false);
  });

  it('recognises principals of repository policies', () => {
    const role = 'arn:aws:iam::111122223333:role/NodeRole';
    expect(namesPrincipal({ Effect: 'Allow', Principal: '*' }, role)).toBe(true);
    expect(namesPrincipal({ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::111122223333:root' } }, role)).toBe(true);
    expect(namesPrincipal({ Effect: 'Allow', Principal: { AWS: ['111122223333'] } }, role)).toBe(true);
    expect(namesPrincipal({ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::444455556666:root' } }, role)).toBe(false);
  });
});

describe('image references', () => {
  it('splits ECR references and defaults the tag to latest', () => {
    expect(parseEcrImage('111122223333.dkr.ecr.eu-west-1.amazonaws.com/team/app')).toMatchObject({
      registryId: '111122223333',
      region: 'eu-west-1',
      repository: 'team/app',
      tag: 'latest',
      repositoryArn: REPO,
    });
    expect(
      parseEcrImage(`111122223333.dkr.ecr.eu-west-1.amazonaws.com/team/app@sha256:${'a'.repeat(64)}`),
    ).toMatchObject({ tag: undefined, digest: `sha256:${'a'.repeat(64)}` });
    expect(parseEcrImage('nginx:latest')).toBeUndefined();
  });

  it('suggests the closest existing tags', () => {
    expect(closest('latestttt', ['1.27', 'latest', 'stable', 'mainline'])[0]).toBe('latest');
    expect(closest('v2.3.1', ['v2.3.0', 'v2.3.10', 'v1.0.0'], 2)).toEqual(['v2.3.0', 'v2.3.10']);
  });

  it('orders EKS add-on build versions', () => {
    expect(compareAddonVersions('v1.18.3-eksbuild.2', 'v1.19.0-eksbuild.1')).toBeLessThan(0);
    expect(compareAddonVersions('v1.11.3-eksbuild.10', 'v1.11.3-eksbuild.9')).toBeGreaterThan(0);
    expect(compareAddonVersions('v1.30.0-eksbuild.3', 'v1.30.0-eksbuild.3')).toBe(0);
  });
});
