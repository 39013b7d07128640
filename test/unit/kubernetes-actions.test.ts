import { describe, expect, it } from 'vitest';
import type { PodObject } from '../../lambdas/core/detect/stuck-pods.js';
import {
  ACTION_RISK,
  actionDisposition,
  drainSelection,
  evictableStuckPods,
  KUBERNETES_ACTIONS,
} from '../../lambdas/core/door/kubernetes-actions.js';
import { runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import {
  awsNodeRestartPath,
  kubernetesRemedyTarget,
  windowsIpamPath,
} from '../../lambdas/core/remedy/kubernetes-paths.js';

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

describe('cluster remedies under the apply-path discipline', () => {
  const now = () => Date.parse('2026-11-30T10:00:00Z');

  it('rolls enable-windows-ipam back to the value before when verification fails (an add-on update overwrote it)', async () => {
    let value: string | null = null;
    const restored: (string | null)[] = [];
    const path = windowsIpamPath({
      read: async () => ({ exists: true, value, windowsNodes: 1 }),
      enable: async () => {
        const before = value;
        value = 'false'; // the managed add-on's configuration wins over the patch
        return { before };
      },
      restore: async (before) => {
        restored.push(before);
        value = before;
      },
    });
    const r = await runApplyPath(path, { dryRun: false, now });
    expect(r.status).toBe('rolled-back');
    expect(r.verification?.reason).toBe('enable-windows-ipam reads false after the patch');
    expect(restored).toEqual([null]);
    expect(r.after).toEqual(['ConfigMap kube-system/amazon-vpc-cni enable-windows-ipam: (absent)']);
  });

  it('picks the cluster remedy from the class and the resolved node only', () => {
    expect(kubernetesRemedyTarget({ class: 'ipamd-unavailable', nodeName: 'ip-10-0-0-1.ec2.internal' }).target).toEqual(
      {
        kind: 'restart-aws-node',
        nodeName: 'ip-10-0-0-1.ec2.internal',
      },
    );
    expect(kubernetesRemedyTarget({ class: 'cni-permissions', nodeName: 'n' }).target?.kind).toBe('restart-aws-node');
    expect(kubernetesRemedyTarget({ class: 'ipamd-unavailable' })).toEqual({
      reason: 'the node is not resolved: aws-node is restarted only on a known node',
    });
    expect(kubernetesRemedyTarget({ class: 'windows-ipam' }).target).toEqual({ kind: 'enable-windows-ipam' });
    expect(kubernetesRemedyTarget({ class: 'sandbox-image', nodeName: 'n' }).target).toBeUndefined();
  });

  it('does not restart aws-node when no aws-node pod runs on the node (not applicable)', async () => {
    const path = awsNodeRestartPath(
      { kind: 'restart-aws-node', nodeName: 'n' },
      {
        awsNode: async () => undefined,
        stuckPods: async () => ['default/a'],
        restart: async () => {
          throw new Error('must not restart');
        },
      },
      { failureClass: 'ipamd-unavailable', cniPolicyAttached: false },
    );
    expect((await runApplyPath(path, { dryRun: false, now })).status).toBe('not-applicable');
  });
});
