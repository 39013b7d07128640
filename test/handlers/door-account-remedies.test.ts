import { describe, expect, it } from 'vitest';
import { accountRemedies } from '../../lambdas/aws/door/account-remedies.js';
import { type DoorContext, RemedyTargetError } from '../../lambdas/aws/door/executor.js';
import { remedy } from '../../lambdas/aws/door/remedy-executor.js';
import type { RemedyAction } from '../../lambdas/core/door/action-request.js';
import { CLUSTER, healthyAccount } from '../../local/account-snapshot.js';
import { mockAccount } from '../../local/mock-account.js';
import { LOCAL_CONFIG } from '../../local/template.js';

/**
 * The door deployed without a remediation scope (the `door` bundle) has no account remedies: a
 * request for one is refused before anything is read, whatever its target. With them (the
 * `door-remedies` bundle) the same request reaches the scope check.
 */
const attach: RemedyAction = {
  kind: 'attach-managed-policy',
  roleName: 'eks-node-role',
  roleArn: 'arn:aws:iam::111122223333:role/eks-node-role',
  policyArn: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
  findingId: 'iam.node-role.ecr-read',
  actions: ['ecr:GetAuthorizationToken'],
};

function context(withRemedies: boolean): { ctx: DoorContext; reads: () => number; restore: () => void } {
  const clients = mockAccount(healthyAccount());
  let reads = 0;
  const counted = new Proxy(clients, {
    get: (t, k) => {
      if (k === 'iam' || k === 'eks' || k === 'ec2') reads++;
      return Reflect.get(t, k);
    },
  });
  const config = {
    ...LOCAL_CONFIG,
    clusters: LOCAL_CONFIG.clusters.map((c) => ({
      ...c,
      remediation: { roles: [], endpointSecurityGroups: [], subnets: [], vpcCniAddon: false },
    })),
  };
  const ctx = {
    request: {
      slot: 'remedy',
      action: attach,
      disposition: 'approve',
      description: 'attach',
      incident: {
        id: 'inc-1',
        key: `${CLUSTER}|node:i-1|image-pull-ecr-auth`,
        class: 'image-pull-ecr-auth',
        cluster: CLUSTER,
      },
      execution: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
      scope: { region: 'eu-west-1' },
    },
    deps: {
      aws: counted,
      accountRemedies: withRemedies ? accountRemedies(counted) : undefined,
      config,
      now: () => 0,
    },
    now: 0,
    polls: { probe: 1, action: 1 },
  } as unknown as DoorContext;
  return { ctx, reads: () => reads, restore: clients.restore };
}

describe('account remedies only in the door that bundles them', () => {
  it('without them (no remediation scope): refused before any read, saying how to enable them', async () => {
    const { ctx, reads, restore } = context(false);
    try {
      await expect(remedy(attach, ctx)).rejects.toThrow(RemedyTargetError);
      await expect(remedy(attach, ctx)).rejects.toThrow(
        /no cluster has a remediation scope.*clusters\[\]\.remediation/,
      );
      expect(reads()).toBe(0);
    } finally {
      restore();
    }
  });

  it("with them: the same request reaches the scope check (the role is not in the cluster's scope)", async () => {
    const { ctx, restore } = context(true);
    try {
      await expect(remedy(attach, ctx)).rejects.toThrow(/not in the cluster's remediation scope|is not configured/);
    } finally {
      restore();
    }
  });
});
