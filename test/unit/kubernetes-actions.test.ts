import { describe, expect, it } from 'vitest';
import {
  ACTION_RISK,
  actionDisposition,
  drainSelection,
  evictableStuckPods,
  KUBERNETES_ACTIONS,
} from '../../lambdas/core/kubernetes-actions.js';
import type { PodObject } from '../../lambdas/core/stuck-pods.js';

const pod = (
  name: string,
  kind?: string,
  extra: Partial<PodObject['metadata']> = {},
  phase = 'Running',
): PodObject => ({
  metadata: {
    name,
    namespace: 'default',
    ...(kind ? { ownerReferences: [{ kind, name: `${name}-owner`, controller: true }] } : {}),
    ...extra,
  },
  status: { phase },
});

describe('Kubernetes action risk tiers', () => {
  it('asks first by default for every action', () => {
    for (const action of KUBERNETES_ACTIONS)
      expect(actionDisposition({ action, mode: 'auto', killSwitch: false }).disposition).toBe('approve');
  });

  it('runs cordon, restart-aws-node and evictions without asking only when the tier and the class mode are auto', () => {
    for (const action of ['cordon', 'restart-aws-node', 'evict-stuck-pods', 'enable-windows-ipam'] as const) {
      expect(actionDisposition({ action, mode: 'auto', tier: 'auto', killSwitch: false }).disposition).toBe('auto');
      expect(actionDisposition({ action, mode: 'approve', tier: 'auto', killSwitch: false }).disposition).toBe(
        'approve',
      );
    }
  });

  it('never drains without a human, whatever the configuration', () => {
    expect(ACTION_RISK['drain-node'].autoAllowed).toBe(false);
    expect(actionDisposition({ action: 'drain-node', mode: 'auto', tier: 'auto', killSwitch: false })).toEqual({
      disposition: 'approve',
      reason: 'drain-node always asks first (risk tier: approve always)',
    });
  });

  it('blocks on the kill switch and in observe mode; dry-run tier shows only', () => {
    expect(actionDisposition({ action: 'cordon', mode: 'auto', tier: 'auto', killSwitch: true }).disposition).toBe(
      'blocked',
    );
    expect(actionDisposition({ action: 'cordon', mode: 'observe', killSwitch: false }).disposition).toBe('blocked');
    expect(
      actionDisposition({ action: 'drain-node', mode: 'auto', tier: 'dry-run', killSwitch: false }).disposition,
    ).toBe('dry-run');
  });
});

describe('which pods an action touches (ownerReferences, never names or text)', () => {
  it('evicts stuck pods only when a ReplicaSet, StatefulSet, DaemonSet or Job re-creates them', () => {
    const r = evictableStuckPods([
      pod('a', 'ReplicaSet'),
      pod('b', 'StatefulSet'),
      pod('c', 'DaemonSet'),
      pod('d', 'Job'),
      pod('e'),
      pod('f', 'CronJobLike'),
    ]);
    expect(r.evict.map((p) => p.metadata?.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(r.skipped).toEqual([
      { pod: 'default/e', why: 'no controller would re-create it' },
      { pod: 'default/f', why: 'controller CronJobLike is not known to re-create it' },
    ]);
  });

  it('drains like kubectl drain without --force: DaemonSet and mirror pods stay, bare pods are reported', () => {
    const r = drainSelection([
      pod('web', 'ReplicaSet'),
      pod('proxy', 'DaemonSet'),
      pod('static', 'Node', { annotations: { 'kubernetes.io/config.mirror': 'abc' } }),
      pod('bare'),
      pod('done', 'Job', {}, 'Succeeded'),
    ]);
    expect(r.evict.map((p) => p.metadata?.name)).toEqual(['web']);
    expect(r.skipped.map((s) => s.pod)).toEqual(['default/proxy', 'default/static', 'default/done']);
    expect(r.unmanaged).toEqual(['default/bare']);
  });
});
