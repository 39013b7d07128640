import { describe, expect, it } from 'vitest';
import type { Finding } from '../../lambdas/core/contract/findings.js';
import { type DrainResult, drainOutcome, planDrain, replacementOf } from '../../lambdas/core/door/drain.js';

const k8sNode: Finding = {
  id: 'k8s.node',
  status: 'pass',
  summary: 'node runs AL2023',
  evidence: {},
  remediation: null,
};
const input = (over: Partial<Parameters<typeof planDrain>[0]> = {}) => ({
  mode: 'auto' as const,
  killSwitch: false,
  restart: 'approve' as const,
  instanceId: 'i-0a1b2c3d4e5f60718',
  nodegroupName: 'ng-1',
  nodeAutoRepair: true,
  findings: [k8sNode],
  ...over,
});

describe('the drain after a failed runtime restart', () => {
  it('always asks first, even in auto mode; recommends without cluster access; none without a restart', () => {
    expect(planDrain(input())).toMatchObject({
      disposition: 'approve',
      reason: 'drain-node asks first (default tier approve)',
    });
    expect(planDrain(input({ findings: [{ ...k8sNode, status: 'error' }] }))?.disposition).toBe('recommend');
    expect(planDrain(input({ findings: [] }))?.reason).toMatch(/cannot reach the Kubernetes API/);
    expect(planDrain(input({ restart: 'recommend', mode: 'observe' }))?.disposition).toBe('recommend');
    expect(planDrain(input({ killSwitch: true }))).toMatchObject({
      disposition: 'blocked',
      reason: 'kill switch is on',
    });
    expect(planDrain(input({ restart: undefined }))).toBeUndefined();
    expect(planDrain(input({ instanceId: undefined }))).toBeUndefined();
  });

  it('names who replaces the node: node auto repair (no double action), a human, or unknown', () => {
    expect(replacementOf(input())).toMatchObject({ nodeAutoRepair: true });
    expect(replacementOf(input()).text).toMatch(
      /^EKS node auto repair of node group ng-1 replaces the node.*no double action/,
    );
    expect(replacementOf(input({ nodeAutoRepair: false })).text).toMatch(
      /^node group ng-1 has no node auto repair: terminate i-0a1b2c3d4e5f60718 .*pod-doctor never terminates instances$/,
    );
    expect(replacementOf(input({ nodegroupName: undefined })).nodeAutoRepair).toBeNull();
  });

  it('says evicted vs gone vs still terminating, and what stays on the node', () => {
    const plan = planDrain(input());
    const result: DrainResult = {
      evicted: ['default/a', 'default/b'],
      gone: [],
      terminated: ['default/a'],
      terminating: ['default/b'],
      waitedSeconds: 120,
      blocked: [{ pod: 'default/web', budget: 'budget web' }],
      failed: [],
      unmanaged: [],
      leftToOthers: false,
      complete: false,
    };
    const d = drainOutcome({ plan, restartVerified: false, result, node: 'ip-10-0-12-34' });
    expect(d?.outcome).toBe(
      'drain-node: cordoned, 2 pod(s) evicted: 1 gone, 1 still terminating after 120 s, 1 refused by a PodDisruptionBudget',
    );
    expect(d?.nextStep).toMatch(/^still on the node: default\/web, default\/b /);
    expect(d?.status).toBe('partly drained');
    expect(drainOutcome({ plan, restartVerified: true, result, node: 'n' })).toBeUndefined();
    expect(
      drainOutcome({
        plan,
        restartVerified: false,
        approval: { approved: false, reason: 'no answer before the approval deadline' },
        node: 'n',
      })?.outcome,
    ).toBe('drain-node not run: no answer before the approval deadline');
  });
});
