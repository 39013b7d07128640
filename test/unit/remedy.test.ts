import { describe, expect, it } from 'vitest';
import { finding } from '../../lambdas/core/contract/findings.js';
import { type ApplyPath, diffLines, runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import { protectedFreeBlocks, reservableRange } from '../../lambdas/core/remedy/cidr.js';
import { isAttachablePolicy } from '../../lambdas/core/remedy/managed-policy.js';
import { planRemedy } from '../../lambdas/core/remedy/plan.js';
import { remedyTarget } from '../../lambdas/core/remedy/targets.js';

/** An in-memory resource: a set of lines; the change adds one line. */
function memoryPath(o: {
  holds?: boolean;
  applyFails?: boolean;
  verifyOk?: boolean;
  verifyThrows?: boolean;
  rollbackFails?: boolean;
  rollbackLeaves?: boolean;
}) {
  const state = new Set(['a']);
  const calls: string[] = [];
  const path: ApplyPath<string[]> = {
    id: 'add-sg-rule',
    change: 'add b',
    read: async () => [...state].sort(),
    causeHolds: (s) => ({ ok: o.holds ?? !s.includes('b'), reason: o.holds === false ? 'gone' : 'b missing' }),
    planned: (s) => [...s, 'b'].sort(),
    render: (s) => s,
    async apply() {
      calls.push('apply');
      if (o.applyFails) throw Object.assign(new Error('no'), { name: 'UnauthorizedOperation' });
      state.add('b');
      return { id: 'b' };
    },
    async verify() {
      calls.push('verify');
      if (o.verifyThrows) throw new Error('throttled');
      return { ok: o.verifyOk ?? true, reason: o.verifyOk === false ? 'still failing' : 'fine' };
    },
    async rollback(applied) {
      calls.push(`rollback ${applied.id}`);
      if (o.rollbackFails) throw new Error('denied');
      if (!o.rollbackLeaves) state.delete('b');
    },
  };
  return { path, state, calls };
}

const run = (p: ApplyPath<string[]>, dryRun = false) => runApplyPath(p, { dryRun, now: () => 0 });

describe('runApplyPath', () => {
  it('verified: applies the smallest change and records before, after and the diff', async () => {
    const m = memoryPath({});
    const r = await run(m.path);
    expect(r).toMatchObject({ status: 'verified', before: ['a'], after: ['a', 'b'], diff: ['  a', '+ b'] });
    expect(m.calls).toEqual(['apply', 'verify']);
  });
  it('dry run: the diff of the planned state, nothing applied', async () => {
    const m = memoryPath({});
    const r = await run(m.path, true);
    expect(r).toMatchObject({ status: 'dry-run', diff: ['  a', '+ b'], after: ['a', 'b'] });
    expect(m.calls).toEqual([]);
    expect([...m.state]).toEqual(['a']);
  });
  it('not needed: the cause no longer holds, nothing applied', async () => {
    const m = memoryPath({ holds: false });
    expect(await run(m.path)).toMatchObject({ status: 'not-needed', reason: 'gone', diff: [] });
    expect(m.calls).toEqual([]);
  });
  it('failed: the change itself failed; no verification, no rollback', async () => {
    const m = memoryPath({ applyFails: true });
    const r = await run(m.path);
    expect(r).toMatchObject({ status: 'failed', reason: 'the change failed: UnauthorizedOperation: no' });
    expect(m.calls).toEqual(['apply']);
  });
  it('rolled back: verification failed, the rollback restored the state before', async () => {
    const m = memoryPath({ verifyOk: false });
    const r = await run(m.path);
    expect(r).toMatchObject({ status: 'rolled-back', before: ['a'], after: ['a'] });
    expect(r.reason).toMatch(/verification failed \(still failing\)/);
    expect(m.calls).toEqual(['apply', 'verify', 'rollback b']);
  });
  it('rolled back: a verification that cannot run counts as failed', async () => {
    const m = memoryPath({ verifyThrows: true });
    expect((await run(m.path)).status).toBe('rolled-back');
  });
  it('rollback failed: the rollback threw, or left the state different from before', async () => {
    expect((await run(memoryPath({ verifyOk: false, rollbackFails: true }).path)).status).toBe('rollback-failed');
    const r = await run(memoryPath({ verifyOk: false, rollbackLeaves: true }).path);
    expect(r).toMatchObject({ status: 'rollback-failed', after: ['a', 'b'] });
  });
  it('diffLines keeps, removes and adds lines', () => {
    expect(diffLines(['x', 'y'], ['y', 'z'])).toEqual(['- x', '  y', '+ z']);
  });
});

describe('remedy targets', () => {
  const node = {
    roleName: 'node-role',
    roleArn: 'arn:aws:iam::111122223333:role/node-role',
    securityGroupIds: ['sg-0123456789abcdef0'],
  };
  const scope = {
    roles: ['node-role', 'cni-role'],
    endpointSecurityGroups: ['sg-0fedcba9876543210'],
    subnets: ['subnet-0a1b2c3d4e5f67890'],
  };
  const ecrFail = (decision = 'implicitly-denied') =>
    finding('iam.node-role.ecr-read', 'fail', 'cannot', { decisions: { 'ecr:BatchGetImage on *': decision } });
  const detach = (policyArn: string, roleName = 'node-role') =>
    finding('change.recent', 'warn', 'likely', {
      changes: [{ event: 'DetachRolePolicy', eventId: 'e-1', by: 'jane', at: 't', roleName, policyArn }],
    });

  it('reverts the attributed detach of an attachable policy from the same role', () => {
    const r = remedyTarget({
      class: 'sandbox-image',
      findings: [ecrFail(), detach('arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly')],
      node,
      scope,
      incidentId: 'i',
    });
    expect(r.target).toMatchObject({
      policyArn: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
      reverts: { eventId: 'e-1' },
    });
  });
  it('never re-attaches a policy that is not an AWS managed ECR/CNI policy, nor one detached from another role', () => {
    for (const d of [
      detach('arn:aws:iam::111122223333:policy/AdminAccess'),
      detach('arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly', 'other'),
    ]) {
      const r = remedyTarget({ class: 'registry-auth', findings: [ecrFail(), d], node, scope, incidentId: 'i' });
      expect(r.target).toMatchObject({ policyArn: 'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly' });
      expect(r.target && 'reverts' in r.target ? r.target.reverts : undefined).toBeUndefined();
    }
  });
  it('no target when an explicit Deny decides (attaching cannot help)', () => {
    const r = remedyTarget({
      class: 'sandbox-image',
      findings: [ecrFail('denied by inline:guard/#0')],
      node,
      scope,
      incidentId: 'i',
    });
    expect(r).toEqual({ reason: expect.stringMatching(/explicit Deny/) });
  });
  it('no target outside the configured scope', () => {
    const r = remedyTarget({
      class: 'sandbox-image',
      findings: [ecrFail()],
      node,
      scope: { ...scope, roles: [] },
      incidentId: 'i',
    });
    expect(r).toEqual({ reason: "role node-role is not listed in the cluster's remediation.roles" });
  });
  it('the SG rule goes on the blocked endpoint group, from the cluster security group EKS created', () => {
    const f = finding('vpc.endpoint.sg-443', 'fail', 'blocked', {
      blockedGroups: [
        { endpoint: 'vpce-1', groupIds: ['sg-0fedcba9876543210'] },
        { endpoint: 'vpce-2', groupIds: ['sg-0fedcba9876543210'] },
      ],
    });
    const target = (o: { clusterSecurityGroupId?: string; node?: typeof node }) =>
      remedyTarget({ class: 'registry-unreachable', findings: [f], scope, incidentId: 'i', node, ...o });
    expect(target({ clusterSecurityGroupId: 'sg-0123456789abcdef0' }).target).toMatchObject({
      groupId: 'sg-0fedcba9876543210',
      sourceGroupId: 'sg-0123456789abcdef0',
      endpoints: ['vpce-1', 'vpce-2'],
    });
    // Never a group of the instance (anyone who launches an instance chooses its groups and its tags).
    expect(target({}).target).toBeUndefined();
    const other = { ...node, securityGroupIds: ['sg-0aaaaaaaaaaaaaaaa'] };
    expect(target({ clusterSecurityGroupId: 'sg-0123456789abcdef0', node: other })).toMatchObject({
      reason: expect.stringMatching(/^the node does not carry the cluster security group sg-0123456789abcdef0/),
    });
  });
  it('attachable policies: the three AWS managed ones, any partition, nothing else', () => {
    expect(isAttachablePolicy('arn:aws-cn:iam::aws:policy/AmazonEKS_CNI_Policy')).toBe(true);
    expect(isAttachablePolicy('arn:aws:iam::aws:policy/AdministratorAccess')).toBe(false);
    expect(isAttachablePolicy('arn:aws:iam::111122223333:policy/AmazonEKS_CNI_Policy')).toBe(false);
  });
});

describe('reservable prefix space', () => {
  const usage = (addresses: string[], reservations: { cidr: string; type: 'prefix' | 'explicit' }[] = []) => ({
    subnetCidr: '10.0.0.0/24',
    addresses,
    prefixes: [],
    reservations,
  });
  it('the largest aligned range of free /28 blocks, never one with a used address', () => {
    // Blocks 0 (AWS-reserved) and 15 (broadcast) are busy; 10.0.0.40 takes block 2.
    expect(reservableRange(usage(['10.0.0.40']))).toEqual({ cidr: '10.0.0.64/26', blocks: 4 });
    const every = Array.from({ length: 16 }, (_, i) => `10.0.0.${i * 16 + 5}`);
    expect(reservableRange(usage(every))).toBeUndefined();
    expect(reservableRange(usage(every.filter((a) => a !== '10.0.0.229')))).toEqual({
      cidr: '10.0.0.224/28',
      blocks: 1,
    });
  });
  it('space already inside a prefix reservation is protected, not offered again', () => {
    const every = Array.from({ length: 16 }, (_, i) => `10.0.0.${i * 16 + 5}`).filter((a) => a !== '10.0.0.229');
    const reserved = usage(every, [{ cidr: '10.0.0.224/28', type: 'prefix' }]);
    expect(reservableRange(reserved)).toBeUndefined();
    expect(protectedFreeBlocks(reserved)).toBe(1);
    expect(protectedFreeBlocks(usage(every))).toBe(0);
  });
});

describe('planRemedy: tiers and safety', () => {
  const node = { roleName: 'node-role', roleArn: 'arn:aws:iam::111122223333:role/node-role', securityGroupIds: [] };
  const scope = { roles: ['node-role'], endpointSecurityGroups: [], subnets: [] };
  const findings = [
    finding('iam.node-role.ecr-read', 'fail', 'cannot', {
      decisions: { 'ecr:BatchGetImage on *': 'implicitly-denied' },
    }),
  ];
  const base = {
    class: 'sandbox-image' as const,
    mode: 'auto' as const,
    killSwitch: false,
    clusterOptedIn: true,
    findings,
    node,
    scope,
    incidentId: 'i',
  };
  it('approve by default, even when the class is auto', () => {
    expect(planRemedy(base).remedy).toMatchObject({ id: 'attach-managed-policy', disposition: 'approve' });
  });
  it('auto only when the class remedy is auto and the class mode is auto', () => {
    expect(planRemedy({ ...base, tier: 'auto' }).remedy?.disposition).toBe('auto');
    expect(planRemedy({ ...base, tier: 'auto', mode: 'approve' }).remedy?.disposition).toBe('approve');
  });
  it('dry-run tier; observe mode plans nothing', () => {
    expect(planRemedy({ ...base, tier: 'dry-run' }).remedy?.disposition).toBe('dry-run');
    expect(planRemedy({ ...base, mode: 'observe' })).toEqual({ reason: expect.stringMatching(/observe/) });
  });
  it('kill switch, cluster not opted in and check errors block it', () => {
    expect(planRemedy({ ...base, tier: 'auto', killSwitch: true }).remedy).toMatchObject({
      disposition: 'blocked',
      reason: 'kill switch is on',
    });
    expect(planRemedy({ ...base, clusterOptedIn: false }).remedy?.disposition).toBe('blocked');
    const errored = [...findings, finding('change.recent', 'error', 'throttled')];
    expect(planRemedy({ ...base, findings: errored }).remedy?.reason).toMatch(/fail closed: .*change.recent/);
  });
});
