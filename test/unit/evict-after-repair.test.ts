import { describe, expect, it } from 'vitest';
import type { Finding } from '../../lambdas/core/contract/findings.js';
import {
  type EvictionResult,
  type EvictPlan,
  evictionOutcome,
  planEviction,
} from '../../lambdas/core/door/evict-after-repair.js';
import { nodeCause } from '../../lambdas/core/policy/cause-evidence.js';

const finding = (id: string, status: Finding['status']): Finding => ({
  id,
  status,
  summary: id,
  evidence: {},
  remediation: null,
});
const REACHABLE = [finding('k8s.node', 'pass')];
const plan = (over: Partial<Parameters<typeof planEviction>[0]> = {}) =>
  planEviction({
    mode: 'auto',
    killSwitch: false,
    clusterOptedIn: true,
    nodeAction: 'repair-pause-image',
    findings: REACHABLE,
    ...over,
  });

describe('planEviction: the tier every cluster action of the class runs under', () => {
  it('asks first by default, runs without asking only with tier auto and the class in auto mode', () => {
    expect(plan()?.disposition).toBe('approve');
    expect(plan({ tier: 'auto' })?.disposition).toBe('auto');
    expect(plan({ tier: 'auto', mode: 'approve' })?.disposition).toBe('approve');
    expect(plan({ tier: 'dry-run' })?.disposition).toBe('dry-run');
  });

  it('kill switch, observe mode, a cluster not opted in: blocked; no cluster access: recommended', () => {
    expect(plan({ killSwitch: true, tier: 'auto' })).toMatchObject({
      disposition: 'blocked',
      reason: 'kill switch is on',
    });
    expect(plan({ mode: 'observe' })?.disposition).toBe('blocked');
    expect(plan({ clusterOptedIn: false, tier: 'auto' })?.disposition).toBe('blocked');
    expect(plan({ findings: [finding('k8s.node', 'error')], tier: 'auto' })?.disposition).toBe('recommend');
  });

  it('only follows the pause repair (a restart that fails is followed by the drain instead)', () => {
    expect(plan({ nodeAction: 'restart-runtime' })).toBeUndefined();
    expect(plan({ nodeAction: undefined })).toBeUndefined();
  });
});

const AUTO: EvictPlan = { id: 'evict-stuck-pods', description: 'evict', disposition: 'auto', reason: 'auto' };
const result = (over: Partial<EvictionResult> = {}): EvictionResult => ({
  evicted: ['default/a-1'],
  gone: [],
  blocked: [],
  failed: [],
  skipped: [],
  dryRun: false,
  ...over,
});

describe('evictionOutcome: what the incident says', () => {
  it('nothing to say unless the repair left pods stuck on a healthy node with an eviction planned', () => {
    expect(evictionOutcome({ plan: AUTO, podsStillStuck: false, stuck: [] })).toBeUndefined();
    expect(evictionOutcome({ plan: null, podsStillStuck: true, stuck: ['default/a-1'] })).toBeUndefined();
  });

  it('verified only when every evicted pod has a running replacement and none was left stuck', () => {
    const replacements = {
      replacements: [{ evicted: 'default/a-1', pod: 'default/a-2', runningAfterSeconds: 4.2 }],
      verified: true,
      windowSeconds: 120,
    };
    const ok = evictionOutcome({
      plan: AUTO,
      podsStillStuck: true,
      stuck: ['default/a-1'],
      result: result(),
      replacements,
    });
    expect(ok).toMatchObject({ verified: true, status: 're-created and running' });
    expect(ok?.outcome).toBe(
      'evict-stuck-pods: evicted default/a-1; re-created: default/a-1 → default/a-2 Running after 4.2 s',
    );
    const bare = evictionOutcome({
      plan: AUTO,
      podsStillStuck: true,
      stuck: ['default/a-1', 'default/b'],
      result: result({ skipped: [{ pod: 'default/b', why: 'no controller would re-create it' }] }),
      replacements,
    });
    expect(bare?.verified).toBe(false);
    expect(bare?.outcome).toMatch(/; left stuck: default\/b$/);
    expect(bare?.detail).toContain('not evicted: default/b: no controller would re-create it');
  });

  it('a replacement that does not run, or no watch at all: not verified, with the pods to look at', () => {
    const stuck = evictionOutcome({
      plan: AUTO,
      podsStillStuck: true,
      stuck: ['default/a-1'],
      result: result(),
      replacements: {
        replacements: [{ evicted: 'default/a-1', pod: 'default/a-2' }],
        verified: false,
        windowSeconds: 60,
      },
    });
    expect(stuck?.outcome).toMatch(/default\/a-1 → default\/a-2 not Running after 60 s/);
    expect(stuck?.nextStep).toMatch(/still do not run .*: default\/a-2/);
    const unwatched = evictionOutcome({
      plan: AUTO,
      podsStillStuck: true,
      stuck: ['default/a-1'],
      result: result(),
      error: 'KubernetesThrottledError',
    });
    expect(unwatched?.verified).toBe(false);
    expect(unwatched?.outcome).toMatch(/the re-created pods were not watched \(KubernetesThrottledError\)/);
  });

  it('not run: blocked, rejected, recommended — each with the command a human runs', () => {
    const base = { podsStillStuck: true, stuck: ['team-a/worker-0'] };
    expect(evictionOutcome({ ...base, plan: AUTO, blocked: 'kill switch is on' })?.outcome).toBe(
      'evict-stuck-pods not run: blocked right before acting: kill switch is on',
    );
    const rejected = evictionOutcome({ ...base, plan: AUTO, approval: { approved: false, reason: 'rejected' } });
    expect(rejected?.outcome).toBe('evict-stuck-pods not run: rejected');
    expect(rejected?.nextStep).toContain('kubectl delete pod -n team-a worker-0');
  });
});

describe('the door before an eviction: the opposite proof of a repair, a healthy node (its own probe)', () => {
  const cause = (findings: Finding[] | undefined) =>
    nodeCause(
      'node-healthy',
      'sandbox-image',
      findings ? { at: 10, findings } : { at: 10, notRun: 'probe NotManaged' },
      0,
    );
  it('holds on a healthy node; not on one that fails again or that it cannot see', () => {
    expect(cause([finding('node.sandbox-image.present', 'pass')]).status).toBe('holds');
    expect(cause([finding('node.sandbox-image.present', 'fail')])).toEqual({
      status: 'cannot',
      reason: 'the node fails again (node.sandbox-image.present): re-created pods would fail the same way',
    });
    expect(cause(undefined)).toEqual({
      status: 'unknown',
      reason: 'cannot tell whether the repaired node is healthy: probe NotManaged',
    });
  });
});
