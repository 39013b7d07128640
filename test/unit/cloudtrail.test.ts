import { describe, expect, it } from 'vitest';
import { type CloudTrailEvent, classifyCloudTrail, isCloudTrailEvent } from '../../lambdas/core/cloudtrail.js';
import { fixture } from '../support/fixtures.js';

const ev = (name: string) => fixture<CloudTrailEvent>(`events/${name}.json`);

describe('CloudTrail classification', () => {
  it.each([
    ['assign-prefix-insufficient-cidr', 'cidr-fragmentation', 'failure'],
    ['create-eni-insufficient-addresses', 'ip-exhaustion', 'failure'],
    ['assign-ip-unauthorized', 'cni-permissions', 'failure'],
    ['ecr-batchgetimage-denied', 'registry-auth', 'failure'],
    ['detach-ecr-readonly', 'registry-auth', 'change'],
    ['revoke-endpoint-sg-443', 'registry-unreachable', 'change'],
    ['set-repository-policy', 'registry-auth', 'change'],
    ['assign-ip-success', 'unknown', 'ignored'],
    ['detach-unrelated-policy', 'unknown', 'ignored'],
  ])('%s → %s (%s)', (name, cls, kind) => {
    const e = ev(name);
    expect(isCloudTrailEvent(e)).toBe(true);
    expect(classifyCloudTrail(e)).toMatchObject({ class: cls, kind });
  });

  it('strips the Client. prefix of EC2 error codes and keeps the ENI and subnet', () => {
    expect(classifyCloudTrail(ev('assign-prefix-insufficient-cidr')).entities).toEqual({
      eniId: 'eni-0123456789abcdef0',
      errorCode: 'InsufficientCidrBlocks',
    });
    expect(classifyCloudTrail(ev('create-eni-insufficient-addresses')).entities.subnetId).toBe(
      'subnet-0a1b2c3d4e5f67890',
    );
  });

  it('names who made a breaking change', () => {
    const c = classifyCloudTrail(ev('detach-ecr-readonly'));
    expect(c.actor).toContain('jane.doe@example.com');
    expect(c.cause).toContain(
      'AmazonEC2ContainerRegistryReadOnly detached from role eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF',
    );
  });

  it('ignores a change that itself failed', () => {
    const e = ev('detach-ecr-readonly');
    const failed = { ...e, detail: { ...e.detail, errorCode: 'AccessDenied' } };
    expect(classifyCloudTrail(failed).kind).toBe('ignored');
  });

  it('does not take other EventBridge events for CloudTrail', () => {
    expect(
      isCloudTrailEvent({ 'detail-type': 'EC2 Instance State-change Notification', source: 'aws.ec2', detail: {} }),
    ).toBe(false);
    expect(isCloudTrailEvent(null)).toBe(false);
  });
});
