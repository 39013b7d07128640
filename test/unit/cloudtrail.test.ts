import { describe, expect, it } from 'vitest';
import {
  type CloudTrailEvent,
  classifyCloudTrail,
  isCloudTrailEvent,
} from '../../lambdas/core/cloudtrail/cloudtrail.js';
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
    ['assign-ip-no-free-ipv4', 'ip-exhaustion', 'failure'],
    ['create-eni-no-free-ipv4', 'ip-exhaustion', 'failure'],
    ['attach-eni-no-free-ipv4', 'ip-exhaustion', 'failure'],
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

  it('reads a generic InvalidParameterValue by its message: a full subnet is ip-exhaustion, other refusals are ignored', () => {
    // AWS Support's wording for a subnet with fewer free addresses than asked for, on the three calls it names
    // (https://github.com/cilium/cilium/pull/31016); the VPC CNI logs it from CreateNetworkInterface in
    // https://github.com/aws/amazon-vpc-cni-k8s/issues/3105.
    const full = classifyCloudTrail(ev('assign-ip-no-free-ipv4'));
    expect(full).toMatchObject({ class: 'ip-exhaustion', entities: { errorCode: 'InvalidParameterValue' } });
    expect(full.cause).toContain('fewer free IP addresses or prefixes');
    expect(classifyCloudTrail(ev('create-eni-no-free-ipv4')).entities.subnetId).toBe('subnet-0a1b2c3d4e5f67890');
    const e = ev('assign-ip-no-free-ipv4');
    // A refusal of another parameter (EC2's wording in https://github.com/hashicorp/terraform-provider-aws/issues/28775).
    const other = {
      ...e,
      detail: { ...e.detail, errorMessage: 'invalid value for parameter ipv6-cidr-block: 2600:1f16:c6:ff10::/60' },
    };
    expect(classifyCloudTrail(other)).toMatchObject({ class: 'unknown', kind: 'ignored' });
    // A fragmented subnet's wording under another code (https://github.com/cilium/cilium/pull/30536) is cidr-fragmentation.
    const fragmented = {
      ...e,
      detail: {
        ...e.detail,
        errorMessage: 'The specified subnet does not have enough free cidr blocks to satisfy the request.',
      },
    };
    expect(classifyCloudTrail(fragmented).class).toBe('cidr-fragmentation');
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
