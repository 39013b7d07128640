import { describe, expect, it } from 'vitest';
import { planRemedy, type RemedyPlanInput } from '../../lambdas/core/remedy/plan.js';
import {
  gitOpsManager,
  type ReplicaSetView,
  type RolloutFacts,
  revisionOf,
  rolloutVerdict,
} from '../../lambdas/core/remedy/rollout.js';
import { rolloutRemedyTarget } from '../../lambdas/core/remedy/rollout-rollback.js';

const GOOD = '111122223333.dkr.ecr.eu-west-1.amazonaws.com/payments/api:v2.3.1';
const TYPO = '111122223333.dkr.ecr.eu-west-1.amazonaws.com/payments/api:v2.3.11';
const DEP = { name: 'api', uid: 'dep-uid' };

const rs = (name: string, revision: number, image: string, o: Partial<ReplicaSetView> = {}): ReplicaSetView => ({
  name,
  uid: `uid-${name}`,
  revision,
  createdAt: revision === 2 ? '2026-11-29T09:58:00Z' : '2026-11-20T08:00:00Z',
  deployment: DEP,
  replicas: revision === 2 ? 2 : 3,
  readyReplicas: revision === 2 ? 0 : 3,
  images: [image],
  imagePullSecrets: [],
  ...o,
});

function facts(o: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): RolloutFacts {
  return {
    deployment: {
      namespace: 'payments',
      name: 'api',
      uid: DEP.uid,
      resourceVersion: '41001',
      labels: { app: 'api', ...o.labels },
      annotations: o.annotations ?? {},
      replicas: 3,
      paused: false,
      images: [TYPO],
      imagePullSecrets: [],
    },
    replicaSets: [rs('api-5f6d8c9b4', 1, GOOD), rs('api-6c8d9f7b5', 2, TYPO)],
    stuck: [
      {
        name: 'api-6c8d9f7b5-x2k4q',
        replicaSet: 'api-6c8d9f7b5',
        createdAt: '2026-11-29T09:59:00Z',
        waiting: ['ImagePullBackOff'],
      },
      {
        name: 'api-6c8d9f7b5-m7n8p',
        replicaSet: 'api-6c8d9f7b5',
        createdAt: '2026-11-29T09:59:10Z',
        waiting: ['ErrImagePull'],
      },
    ],
  };
}

describe('rollout verdict: is the last rollout why the pods cannot pull', () => {
  it('the failing pods are the newest revision, the one before runs: roll back from 2 to 1', () => {
    const v = rolloutVerdict(facts(), { failureClass: 'image-not-found' });
    expect(v).toMatchObject({
      status: 'rollback',
      target: { namespace: 'payments', deployment: 'api', fromRevision: 2, toRevision: 1 },
    });
    expect(v.reason).toBe(
      `2 pod(s) of revision 2 (${TYPO}) cannot pull since 1 min after the template changed; revision 1 (${GOOD}) has 3 ready pod(s)`,
    );
    expect(rolloutVerdict(facts(), { failureClass: 'registry-auth' }).status).toBe('rollback');
  });

  it.each([
    ['argocd.argoproj.io/instance', 'label', 'Argo CD'],
    ['argocd.argoproj.io/tracking-id', 'annotation', 'Argo CD'],
    ['kustomize.toolkit.fluxcd.io/name', 'label', 'Flux (Kustomization)'],
    ['helm.toolkit.fluxcd.io/name', 'label', 'Flux (HelmRelease)'],
  ])('a Deployment with %s (%s) is GitOps-managed: change Git, and why', (key, where, manager) => {
    const f = facts(
      where === 'label'
        ? { labels: { [key]: 'payments' } }
        : { annotations: { [key]: 'payments:apps/Deployment:payments/api' } },
    );
    const v = rolloutVerdict(f, { failureClass: 'image-not-found' });
    expect(v.status).toBe('gitops');
    expect(v.status === 'gitops' && v.manager).toBe(manager);
    expect(v.reason).toMatch(
      new RegExp(
        `managed by ${manager.replace(/[()]/g, '\\$&')} \\(${key}\\): a rollback in the cluster would be reverted at its next sync and Git would still name the failing image, so change Git back to ${GOOD.replace(/\./g, '\\.')}$`,
      ),
    );
  });

  it('app.kubernetes.io labels alone are no GitOps controller', () => {
    expect(
      gitOpsManager({
        labels: { 'app.kubernetes.io/instance': 'api', 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: {},
      }),
    ).toBeUndefined();
  });

  it.each<[string, (f: RolloutFacts) => RolloutFacts, RegExp]>([
    [
      'the previous revision has no ready pod',
      (f) => ({
        ...f,
        replicaSets: [rs('api-5f6d8c9b4', 1, GOOD, { readyReplicas: 0 }), f.replicaSets[1] as ReplicaSetView],
      }),
      /no pod of revision 1 \(api-5f6d8c9b4\) is ready: a rollback would not bring running pods back/,
    ],
    [
      'pods of the old revision fail too',
      (f) => ({
        ...f,
        stuck: [
          ...f.stuck,
          {
            name: 'api-5f6d8c9b4-a',
            replicaSet: 'api-5f6d8c9b4',
            createdAt: '2026-11-29T09:59:00Z',
            waiting: ['ErrImagePull'],
          },
        ],
      }),
      /pods of an older revision than 2 fail to pull too/,
    ],
    [
      'the failure started long after the template changed',
      (f) => ({ ...f, stuck: f.stuck.map((p) => ({ ...p, createdAt: '2026-11-29T12:00:00Z' })) }),
      /started 122 min after revision 2: outside the 30 min window/,
    ],
    [
      'the rollout changed nothing a pull uses',
      (f) => ({ ...f, replicaSets: [rs('api-5f6d8c9b4', 1, TYPO), f.replicaSets[1] as ReplicaSetView] }),
      /revision 2 pulls the same images as 1: the rollout changed no pull/,
    ],
    [
      'the pods wait on something other than a pull',
      (f) => ({ ...f, stuck: f.stuck.map((p) => ({ ...p, waiting: ['ContainerCreating'] })) }),
      /no pod of Deployment payments\/api waits on an image pull/,
    ],
    [
      'there is no revision before',
      (f) => ({ ...f, replicaSets: [f.replicaSets[1] as ReplicaSetView] }),
      /has no revision before 2: nothing to roll back to/,
    ],
    ['the rollout is paused', (f) => ({ ...f, deployment: { ...f.deployment, paused: true } }), /is paused/],
  ])('no rollback when %s', (_, change, reason) => {
    const v = rolloutVerdict(change(facts()), { failureClass: 'image-not-found' });
    expect(v.status).toBe('none');
    expect(v.reason).toMatch(reason);
  });

  it("a ReplicaSet another owner controls (same Deployment name, other uid) is not this Deployment's history", () => {
    const f = facts();
    const v = rolloutVerdict(
      { ...f, replicaSets: [...f.replicaSets, rs('api-zzz', 9, TYPO, { deployment: { name: 'api', uid: 'other' } })] },
      { failureClass: 'image-not-found' },
    );
    expect(v).toMatchObject({ status: 'rollback', target: { fromRevision: 2, toRevision: 1 } });
  });

  it('classes a rollout cannot cause are not looked at', () => {
    expect(rolloutVerdict(facts(), { failureClass: 'sandbox-image' })).toEqual({
      status: 'none',
      reason: 'sandbox-image is not a pull failure a rollout can cause',
    });
  });

  it('revisions are the controller’s decimal integers, nothing else', () => {
    expect(revisionOf({ 'deployment.kubernetes.io/revision': '12' })).toBe(12);
    expect(revisionOf({ 'deployment.kubernetes.io/revision': '1e3' })).toBeUndefined();
    expect(revisionOf({ 'deployment.kubernetes.io/revision': '-1' })).toBeUndefined();
    expect(revisionOf(undefined)).toBeUndefined();
  });
});

const rolloutFinding = (status: 'fail' | 'warn', evidence: Record<string, unknown> = {}) => ({
  id: 'k8s.rollout',
  status,
  summary: 'Deployment payments/api: managed by Argo CD (argocd.argoproj.io/instance): change Git',
  evidence: { namespace: 'payments', deployment: 'api', fromRevision: 2, toRevision: 1, ...evidence },
  remediation: null,
});

const input = (o: Partial<RemedyPlanInput> = {}): RemedyPlanInput => ({
  class: 'image-not-found',
  mode: 'approve',
  tier: 'auto',
  killSwitch: false,
  clusterOptedIn: true,
  clusterAccess: true,
  findings: [rolloutFinding('fail')],
  scope: { roles: [], endpointSecurityGroups: [], subnets: [] },
  incidentId: 'inc-1',
  cluster: 'prod-eu',
  ...o,
});

describe('the rollback remedy in the plan', () => {
  it('k8s.rollout failing plans the rollback, approval-gated even with tier auto in auto mode', () => {
    const p = planRemedy(input({ mode: 'auto' }));
    expect(p.remedy).toMatchObject({
      id: 'rollback-deployment',
      disposition: 'approve',
      target: { kind: 'rollback-deployment', namespace: 'payments', deployment: 'api', fromRevision: 2, toRevision: 1 },
    });
    expect(p.reason).toBe("a rollback changes a tenant's workload: it always asks first");
  });

  it('GitOps-managed: no rollback, the recommendation to change Git', () => {
    const p = planRemedy(input({ findings: [rolloutFinding('warn')] }));
    expect(p.remedy).toBeUndefined();
    expect(p.recommend).toMatch(
      /^recommend: .*managed by Argo CD.*\(pod-doctor does not roll back a GitOps-managed workload\)$/,
    );
  });

  it('without cluster access, and in observe mode, the kubectl command is recommended', () => {
    const cmd = 'kubectl -n payments rollout undo deployment/api --to-revision=1';
    expect(planRemedy(input({ clusterAccess: false })).recommend).toMatch(cmd);
    expect(planRemedy(input({ mode: 'observe' }))).toEqual({
      reason: 'class image-not-found is in observe mode: changes are recommended',
      recommend: `recommend: ${cmd}`,
    });
  });

  it('evidence that is not a Deployment and two revisions plans nothing', () => {
    for (const bad of [{ namespace: 'Pay ments' }, { toRevision: 0 }, { fromRevision: '2' }, { deployment: '../x' }])
      expect(rolloutRemedyTarget([rolloutFinding('fail', bad)])).toEqual({});
  });
});
