import { afterEach, describe, expect, it } from 'vitest';
import { AccountFactsLookup } from '../../lambdas/aws/ingest/account-facts.js';
import { ACCOUNT, CLUSTER, ENDPOINT_SG, healthyAccount, NODE_ID, NODE_ROLE } from '../../local/account-snapshot.js';
import { mockAccount } from '../../local/mock-account.js';

let restore = () => {};
afterEach(() => restore());

function lookup(mutate: (a: ReturnType<typeof healthyAccount>) => void = () => {}, clusters = [CLUSTER]) {
  const a = healthyAccount();
  mutate(a);
  const clients = mockAccount(a);
  restore = clients.restore;
  return new AccountFactsLookup(clients.eks, clients.ec2, clusters, () => 0);
}

describe('what the ingest path looks up to scope CloudTrail events (recorded account)', () => {
  it('knows the node roles of managed node groups and access entries, and the aws-node role', async () => {
    const roles = await lookup((a) => {
      a.accessEntries = [
        {
          clusterName: CLUSTER,
          principalArn: `arn:aws:iam::${ACCOUNT}:role/KarpenterNodeRole-prod-eu`,
          type: 'EC2_LINUX',
        },
        { clusterName: CLUSTER, principalArn: `arn:aws:iam::${ACCOUNT}:role/platform-admins`, type: 'STANDARD' },
      ];
      a.addons = a.addons.map((x) =>
        x.addonName === 'vpc-cni'
          ? { ...x, serviceAccountRoleArn: `arn:aws:iam::${ACCOUNT}:role/AmazonEKS_CNI_Role` }
          : x,
      );
    }).knownRoles();
    expect([...roles.keys()].sort()).toEqual(['AmazonEKS_CNI_Role', 'KarpenterNodeRole-prod-eu', NODE_ROLE].sort());
    expect(roles.get(NODE_ROLE)).toEqual([CLUSTER]);
  });

  it('knows no role when no cluster is configured', async () => {
    expect((await lookup(() => {}, []).knownRoles()).size).toBe(0);
  });

  it('lists the security groups of the ECR and S3 endpoints', async () => {
    expect([...(await lookup().endpointGroups())]).toContain(ENDPOINT_SG);
  });

  it('resolves a network interface to its instance and the instance to its cluster', async () => {
    expect(await lookup().node(undefined, 'eni-0123456789abcdef0')).toEqual({ instanceId: NODE_ID, cluster: CLUSTER });
  });

  it('leaves a fact undefined when its lookup is denied', async () => {
    const a = healthyAccount();
    const clients = mockAccount(a, { deny: ['ListNodegroupsCommand'] });
    restore = clients.restore;
    const facts = await new AccountFactsLookup(clients.eks, clients.ec2, [CLUSTER], () => 0).factsFor({
      roles: true,
      endpointSecurityGroups: true,
    });
    expect(facts.knownRoles).toBeUndefined();
    expect(facts.endpointSecurityGroups?.has(ENDPOINT_SG)).toBe(true);
  });
});
