import { describe, expect, it } from 'vitest';
import { finding } from '../../lambdas/core/contract/findings.js';
import { candidateActions } from '../../lambdas/core/policy/policy.js';
import { planRemedy, type RemedyPlanInput } from '../../lambdas/core/remedy/plan.js';

/** Decide's planning of the cluster remedies (ipamd, Windows IPAM, CNI permissions' follow-up). */

const NODE = 'ip-10-0-12-34.eu-west-1.compute.internal';
const CNI_ROLE_ARN = 'arn:aws:iam::111122223333:role/AmazonEKSVPCCNIRole';
const base: RemedyPlanInput = {
  class: 'ipamd-unavailable',
  mode: 'approve',
  killSwitch: false,
  clusterOptedIn: true,
  clusterAccess: true,
  findings: [],
  node: { roleName: 'node-role', roleArn: 'arn:aws:iam::111122223333:role/node-role', privateDnsName: NODE },
  scope: { roles: ['AmazonEKSVPCCNIRole'], endpointSecurityGroups: [], subnets: [] },
  incidentId: 'i',
};
const cni: RemedyPlanInput = {
  ...base,
  class: 'cni-permissions',
  findings: [finding('iam.cni-policy', 'fail', 'missing', { role: 'AmazonEKSVPCCNIRole', roleArn: CNI_ROLE_ARN })],
};

describe('planRemedy: cluster remedies', () => {
  it('ipamd unreachable: restart aws-node on the node resolved from EC2 (its private DNS name)', () => {
    expect(planRemedy(base).remedy).toEqual({
      id: 'restart-aws-node',
      target: { kind: 'restart-aws-node', nodeName: NODE },
      disposition: 'approve',
      reason: 'account and cluster changes ask first (default tier approve)',
    });
  });

  it('never on a node the workflow did not resolve (log text names no node here)', () => {
    const r = planRemedy({ ...base, node: { roleName: 'node-role' } });
    expect(r.remedy).toBeUndefined();
    expect(r.reason).toMatch(/the node is not resolved/);
  });

  it('windows-ipam: enable-windows-ipam, no node needed', () => {
    expect(planRemedy({ ...base, class: 'windows-ipam', node: undefined }).remedy?.target).toEqual({
      kind: 'enable-windows-ipam',
    });
  });

  it('CNI permissions: the policy attach, with the aws-node restart as its follow-up under the same disposition', () => {
    const r = planRemedy({ ...cni, tier: 'auto', mode: 'auto' }).remedy;
    expect(r).toMatchObject({
      id: 'attach-managed-policy',
      disposition: 'auto',
      followUp: { id: 'restart-aws-node', target: { kind: 'restart-aws-node', nodeName: NODE }, disposition: 'auto' },
    });
    expect(r?.followUp?.followUp).toBeUndefined();
  });

  it('without cluster access: nothing routed to no function; the plan says "recommend: no cluster access"', () => {
    const r = planRemedy({ ...base, clusterAccess: false });
    expect(r.remedy).toBeUndefined();
    expect(r.recommend).toMatch(/^recommend: no cluster access .*restart aws-node on node ip-10-0-12-34/);
    const w = planRemedy({ ...base, class: 'windows-ipam', clusterAccess: undefined });
    expect(w.recommend).toMatch(/^recommend: no cluster access .*enable-windows-ipam/);
    const c = planRemedy({ ...cni, clusterAccess: false });
    expect(c.remedy).toMatchObject({ id: 'attach-managed-policy' });
    expect(c.remedy?.followUp).toBeUndefined();
    expect(c.recommend).toMatch(/^recommend: no cluster access/);
  });

  it('dry-run tier, observe mode, kill switch, opt-in and fail closed apply as to account remedies', () => {
    expect(planRemedy({ ...base, tier: 'dry-run' }).remedy?.disposition).toBe('dry-run');
    expect(planRemedy({ ...base, mode: 'observe' }).remedy).toBeUndefined();
    expect(planRemedy({ ...base, killSwitch: true }).remedy).toMatchObject({ disposition: 'blocked' });
    expect(planRemedy({ ...base, clusterOptedIn: false }).remedy).toMatchObject({ disposition: 'blocked' });
    const errored = planRemedy({ ...cni, findings: [...cni.findings, finding('check.eks', 'error', 'x')] }).remedy;
    expect(errored).toMatchObject({ disposition: 'blocked', reason: expect.stringMatching(/^fail closed/) });
    // A blocked remedy carries no follow-up to run.
    expect(errored?.followUp).toBeUndefined();
    // Kubernetes findings are evidence, not a gate (the cluster may be the thing that is broken).
    const k8s = planRemedy({ ...base, findings: [finding('k8s.aws-node', 'error', 'unreachable')] });
    expect(k8s.remedy?.disposition).toBe('approve');
  });

  it('the policy lists the cluster actions (tier cluster, recommended until the remedy plan says otherwise)', () => {
    const ids = (cls: RemedyPlanInput['class'], instanceId?: string) =>
      candidateActions({ class: cls, instanceId, findings: [] }).map((a) => `${a.id}:${a.tier}`);
    expect(ids('ipamd-unavailable', 'i-1')).toEqual(['collect-logs:in-place', 'restart-aws-node:cluster']);
    expect(ids('ipamd-unavailable')).toEqual([]);
    expect(ids('windows-ipam')).toEqual(['enable-windows-ipam:cluster']);
    expect(ids('cni-permissions', 'i-1')).toEqual(['attach-managed-policy:account', 'restart-aws-node:cluster']);
  });
});
