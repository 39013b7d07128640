import { describe, expect, it } from 'vitest';
import { type CloudTrailEvent, classifyCloudTrail } from '../../lambdas/core/cloudtrail/cloudtrail.js';
import { factsNeeded, scopeCloudTrail } from '../../lambdas/core/cloudtrail/cloudtrail-scope.js';
import { readEvent } from '../../lambdas/core/incident/ingest.js';
import { cloudTrailFixture, fixture } from '../support/fixtures.js';

const NODE_ROLE = 'eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF';
const ENDPOINT_SG = 'sg-0fedcba9876543210';
const CONFIG = { logGroupClusters: {}, accountScope: 'account' };
const ev = (name: string) => fixture<CloudTrailEvent>(`events/${name}.json`);
const scope = (e: CloudTrailEvent, facts: Parameters<typeof scopeCloudTrail>[2]) =>
  scopeCloudTrail(e, classifyCloudTrail(e), facts);
const known = new Map([[NODE_ROLE, ['prod-eu']]]);

describe('CloudTrail events scoped to the configured clusters', () => {
  it('keeps a role policy change only on a node or aws-node role, with that role’s cluster', () => {
    expect(scope(ev('detach-ecr-readonly'), { knownRoles: known })).toMatchObject({ keep: true, cluster: 'prod-eu' });
    const other = cloudTrailFixture('put-role-policy-controller-role');
    expect(classifyCloudTrail(other).kind).toBe('change');
    expect(scope(other, { knownRoles: known })).toMatchObject({ keep: false });
    expect(readEvent(other, CONFIG, 0, { knownRoles: known })).toMatchObject({
      occurrences: [],
      stats: { outOfScope: 1, classified: 0 },
    });
  });

  it('keeps an ingress revocation only on an endpoint security group', () => {
    const revoke = ev('revoke-endpoint-sg-443');
    expect(scope(revoke, { endpointSecurityGroups: new Set([ENDPOINT_SG]) }).keep).toBe(true);
    expect(scope(revoke, { endpointSecurityGroups: new Set(['sg-0aaaaaaaaaaaaaaaa']) }).keep).toBe(false);
  });

  it('keeps the event when the facts could not be looked up (noise over silence)', () => {
    expect(scope(cloudTrailFixture('put-role-policy-controller-role'), {}).keep).toBe(true);
    expect(scope(ev('revoke-endpoint-sg-443'), {}).keep).toBe(true);
  });

  it('asks for the node of a CNI failure by the resources the call names, never by its session name', () => {
    // The session is named i-0a1b2c3d4e5f60718, but whoever may assume the node role names its session:
    // the ENI the call names (resolved in EC2) is the node.
    const byNodeRole = ev('assign-ip-unauthorized');
    expect(factsNeeded(byNodeRole, classifyCloudTrail(byNodeRole))).toMatchObject({
      instanceId: undefined,
      eniId: 'eni-0123456789abcdef0',
    });
    const { networkInterfaceId: _, ...noEni } = byNodeRole.detail.requestParameters ?? {};
    const sessionOnly = { ...byNodeRole, detail: { ...byNodeRole.detail, requestParameters: noEni } };
    expect(scope(sessionOnly, {}).entities.instanceId).toBeUndefined();
    const cidr = ev('assign-prefix-insufficient-cidr');
    // aws-node on IRSA: the session is not named after the instance.
    const irsa = {
      ...cidr,
      detail: {
        ...cidr.detail,
        userIdentity: { arn: 'arn:aws:sts::111122223333:assumed-role/AmazonEKS_CNI_Role/1700000000000000000' },
      },
    };
    expect(factsNeeded(irsa, classifyCloudTrail(irsa))).toEqual({
      roles: false,
      endpointSecurityGroups: false,
      instanceId: undefined,
      eniId: 'eni-0123456789abcdef0',
    });
  });

  it('puts the resolved node and its cluster on the incident', () => {
    const e = ev('assign-prefix-insufficient-cidr');
    const r = readEvent(e, CONFIG, 0, { node: { instanceId: 'i-0a1b2c3d4e5f60718', cluster: 'prod-eu' } });
    expect(r.occurrences[0]).toMatchObject({ cluster: 'prod-eu', entities: { instanceId: 'i-0a1b2c3d4e5f60718' } });
  });
});
