import { describe, expect, it } from 'vitest';
import { CLASS_MODES, FAILURE_CLASSES } from '../../lambdas/core/contract/failure-classes.js';
import type { Finding } from '../../lambdas/core/contract/findings.js';
import { CHECKS_FOR_CLASS, decide, type PolicyInput } from '../../lambdas/core/policy/policy.js';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const base: PolicyInput = {
  class: 'sandbox-image',
  mode: 'auto',
  killSwitch: false,
  clusterOptedIn: true,
  instanceId: 'i-0a1b2c3d4e5f60718',
  sandboxImage: 'localhost/kubernetes/pause:latest',
  findings: [],
  limits: { maxNodeActionsPerClusterPerHour: 5, maxNodeGroupShareAffected: 0.3, nodeCooldownMinutes: 60 },
  nodeActionsLastHour: 0,
  affectedNodes: 1,
  nodeGroupSize: 10,
  now: NOW,
};
const f = (id: string, status: Finding['status']): Finding => ({
  id,
  status,
  summary: id,
  evidence: {},
  remediation: `fix ${id}`,
});
const disposition = (input: Partial<PolicyInput>, action: string) =>
  decide({ ...base, ...input }).actions.find((a) => a.id === action)?.disposition;

describe('modes × risk tiers', () => {
  // tier: in-place (repair-pause-image), disruptive (restart-runtime), account (attach-managed-policy)
  const cases: [PolicyInput['mode'], string, string][] = [
    ['auto', 'in-place', 'auto'],
    ['auto', 'disruptive', 'approve'],
    ['auto', 'account', 'recommend'],
    ['approve', 'in-place', 'approve'],
    ['approve', 'disruptive', 'approve'],
    ['approve', 'account', 'recommend'],
    ['observe', 'in-place', 'recommend'],
    ['observe', 'disruptive', 'recommend'],
    ['observe', 'account', 'recommend'],
  ];
  const probe: Record<string, Partial<PolicyInput> & { action: string }> = {
    'in-place': { class: 'sandbox-image', action: 'repair-pause-image' },
    disruptive: { class: 'pid-exhaustion', action: 'restart-runtime' },
    account: { class: 'cni-permissions', action: 'attach-managed-policy' },
  };
  it.each(cases)('mode %s, %s action → %s', (mode, tier, expected) => {
    const { action, ...input } = probe[tier];
    expect(disposition({ ...input, mode }, action)).toBe(expected);
  });

  it('every class and mode yields a plan without throwing, and observe never acts', () => {
    for (const cls of FAILURE_CLASSES) {
      for (const mode of CLASS_MODES) {
        const p = decide({ ...base, class: cls, mode });
        if (mode === 'observe') expect(p.actions.every((a) => a.disposition === 'recommend')).toBe(true);
        expect(['act', 'approve', 'recommend', 'blocked']).toContain(p.decision);
      }
    }
  });
});

describe('safety rules', () => {
  it('the kill switch blocks every action', () => {
    const p = decide({ ...base, killSwitch: true });
    expect(p.decision).toBe('blocked');
    expect(p.reasons[0]).toContain('kill switch is on');
  });

  it('a cluster that is not configured gets no action', () => {
    expect(decide({ ...base, clusterOptedIn: false }).decision).toBe('blocked');
  });

  it('fails closed when a relevant check could not run', () => {
    const p = decide({ ...base, findings: [f('iam.node-role.ecr-read', 'error'), f('vpc.endpoint.ecr-api', 'pass')] });
    expect(p.decision).toBe('blocked');
    expect(p.reasons[0]).toContain('fail closed: check(s) could not run: iam.node-role.ecr-read');
  });

  it('a Kubernetes inspection that could not run is reported, not a gate (the account checks still are)', () => {
    expect(decide({ ...base, findings: [f('k8s.stuck-pods', 'error')] }).decision).toBe('act');
    const p = decide({ ...base, findings: [f('k8s.stuck-pods', 'error'), f('iam.node-role.ecr-read', 'error')] });
    expect(p.decision).toBe('blocked');
    expect(p.reasons[0]).toContain('could not run: iam.node-role.ecr-read');
    expect(p.reasons[0]).not.toContain('k8s.');
  });

  it('the breaker stops node actions when the class hits more than the share of a node group', () => {
    expect(decide({ ...base, affectedNodes: 3, nodeGroupSize: 10 }).decision).toBe('act');
    const p = decide({ ...base, affectedNodes: 4, nodeGroupSize: 10 });
    expect(p.decision).toBe('blocked');
    expect(p.reasons[0]).toMatch(/breaker: 4\/10 nodes .* the cause is shared/);
  });

  it('one affected node never trips the breaker, even in a node group of three', () => {
    expect(decide({ ...base, affectedNodes: 1, nodeGroupSize: 3 }).decision).toBe('act');
    expect(decide({ ...base, affectedNodes: 2, nodeGroupSize: 3 }).decision).toBe('blocked');
  });

  it('the breaker does not touch account-tier recommendations', () => {
    const p = decide({ ...base, findings: [f('iam.node-role.ecr-read', 'fail')], affectedNodes: 9, nodeGroupSize: 10 });
    expect(p.actions.find((a) => a.id === 'attach-managed-policy')?.disposition).toBe('recommend');
    expect(p.recommendations).toContain('attach AmazonEC2ContainerRegistryPullOnly to the node role');
  });

  it('caps node actions per cluster per hour', () => {
    expect(decide({ ...base, nodeActionsLastHour: 4 }).decision).toBe('act');
    expect(decide({ ...base, nodeActionsLastHour: 5 }).reasons[0]).toContain('hourly cap: 5 node actions');
  });

  it('keeps a cooldown per node and class', () => {
    expect(decide({ ...base, lastNodeActionAt: NOW - 59 * 60_000 }).reasons[0]).toContain('cooldown');
    expect(decide({ ...base, lastNodeActionAt: NOW - 61 * 60_000 }).decision).toBe('act');
  });

  it('without a node there is no node action, only recommendations', () => {
    const p = decide({ ...base, instanceId: undefined, findings: [f('iam.node-role.ecr-read', 'fail')] });
    expect(p.nodeAction).toBeUndefined();
    expect(p.decision).toBe('recommend');
  });
});

describe('plans', () => {
  it('an AL2023 pause image incident in auto mode repairs in place with the sandbox image as parameter', () => {
    const p = decide(base);
    expect(p).toMatchObject({
      decision: 'act',
      nodeAction: {
        id: 'repair-pause-image',
        document: 'repairPauseImage',
        parameters: { Image: 'localhost/kubernetes/pause:latest', DryRun: 'false' },
      },
    });
  });

  it('PID exhaustion collects logs automatically and asks before restarting', () => {
    const p = decide({ ...base, class: 'pid-exhaustion' });
    expect(p.nodeAction?.id).toBe('collect-logs');
    expect(p.actions.find((a) => a.id === 'restart-runtime')?.disposition).toBe('approve');
    // The restart is the follow-up: asked for once the logs are collected.
    expect(p.followUp).toMatchObject({ id: 'restart-runtime', document: 'restartRuntime', disposition: 'approve' });
  });

  it('no follow-up when the safety policy blocks it, the mode observes, or the class has one node action', () => {
    expect(decide({ ...base, class: 'pid-exhaustion', killSwitch: true }).followUp).toBeUndefined();
    expect(decide({ ...base, class: 'pid-exhaustion', mode: 'observe' }).followUp).toBeUndefined();
    expect(decide({ ...base, class: 'pid-exhaustion', nodeActionsLastHour: 5 }).followUp).toBeUndefined();
    expect(decide(base).followUp).toBeUndefined();
  });

  it('PID exhaustion in approve mode asks first', () => {
    expect(decide({ ...base, class: 'pid-exhaustion', mode: 'approve' }).decision).toBe('approve');
  });

  it('an ECR endpoint security group blocking 443 is recommended, never applied', () => {
    const p = decide({ ...base, class: 'registry-unreachable', findings: [f('vpc.endpoint.sg-443', 'fail')] });
    expect(p.decision).toBe('recommend');
    expect(p.nodeAction).toBeUndefined();
    expect(p.recommendations).toEqual(
      expect.arrayContaining([expect.stringContaining('TCP 443'), 'vpc.endpoint.sg-443: fix vpc.endpoint.sg-443']),
    );
  });

  it('names the checks to run for every class', () => {
    for (const cls of FAILURE_CLASSES) expect(Array.isArray(CHECKS_FOR_CLASS[cls])).toBe(true);
    expect(CHECKS_FOR_CLASS['cidr-fragmentation']).toContain('network');
  });
});

describe('advice', () => {
  it('adds the runbook advice of the class after the specific recommendations', () => {
    const p = decide({ ...base, class: 'windows-ipam' });
    expect(p.recommendations.at(-1)).toContain('enable-windows-ipam');
    const typo = decide({
      ...base,
      class: 'image-not-found',
      findings: [
        {
          id: 'ecr.image-exists',
          status: 'fail',
          summary: 'x',
          evidence: {},
          remediation: 'use an existing tag, e.g. app:v1',
        },
      ],
    });
    expect(typo.recommendations[0]).toBe('ecr.image-exists: use an existing tag, e.g. app:v1');
  });
});
