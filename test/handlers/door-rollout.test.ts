import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seededCluster } from '../../demo/cluster-seeds.js';
import { type RolloutSeedOptions, rolloutCluster, TYPO_IMAGE } from '../../demo/scenarios-prevent.js';
import type { WaitOptions } from '../../lambdas/aws/door/kubernetes-actions.js';
import { rolloutPort } from '../../lambdas/aws/door/rollout-port.js';
import { inspectCluster } from '../../lambdas/aws/kubernetes/inspect.js';
import { ClusterApi } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../../lambdas/aws/readers/kubernetes/token.js';
import { type ApplyRecord, runApplyPath } from '../../lambdas/core/remedy/apply-path.js';
import { rolloutRollbackPath } from '../../lambdas/core/remedy/rollout-rollback.js';
import { KubeApiServer } from '../../local/kube-api-server.js';

/**
 * rollback-deployment as the door runs it, against the local API server (the shipped RBAC, the
 * deployment controller's sync): the owner chain read, the cause re-checked, the template of the
 * revision that ran put back with a resourceVersion guard, verified by its pods running.
 */
const server = new KubeApiServer();
let endpoint = '';
const WAIT: WaitOptions = { timeoutMs: 500, pollMs: 20 };
const GOOD = TYPO_IMAGE.replace('v2.3.11', 'v2.3.1');
const TARGET = {
  kind: 'rollback-deployment',
  namespace: 'payments',
  deployment: 'api',
  fromRevision: 2,
  toRevision: 1,
} as const;

beforeAll(async () => {
  endpoint = await server.start();
});
afterAll(() => server.stop());
const seed = (o: RolloutSeedOptions = {}) => {
  server.cluster = seededCluster(rolloutCluster(o));
  server.seen.length = 0;
};
beforeEach(() => seed());

const api = () =>
  new ClusterApi(
    { name: 'prod-eu', region: 'eu-west-1', endpoint, certificateAuthorityData: server.caData },
    new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
  );
const now = () => Date.parse('2026-11-29T10:05:00Z');
const rollback = (dryRun = false): Promise<ApplyRecord> =>
  runApplyPath(rolloutRollbackPath(TARGET, rolloutPort(api(), TARGET, WAIT), { failureClass: 'image-not-found' }), {
    dryRun,
    now,
  });
const writes = () => server.seen.filter((s) => s.method !== 'GET').map((s) => `${s.method} ${s.path}`);
const deployment = () =>
  server.cluster.deployments?.[0] as { spec: { template: { spec: { containers: { image: string }[] } } } };

describe('the inspection names the rollout from the owner chain', () => {
  it('k8s.rollout fails with the Deployment and the two revisions (pod → ReplicaSet → Deployment)', async () => {
    const r = await inspectCluster(api(), { failureClass: 'image-not-found', image: TYPO_IMAGE });
    const f = r.findings.find((x) => x.id === 'k8s.rollout');
    expect(f).toMatchObject({
      status: 'fail',
      evidence: { namespace: 'payments', deployment: 'api', fromRevision: 2, toRevision: 1, rollout: 'rollback' },
      remediation: 'kubectl -n payments rollout undo deployment/api --to-revision=1',
    });
    expect(writes()).toEqual([]);
  });

  it('Argo CD manages the Deployment: warn, change Git', async () => {
    seed({ gitops: { 'argocd.argoproj.io/instance': 'payments' } });
    const r = await inspectCluster(api(), { failureClass: 'image-not-found', image: TYPO_IMAGE });
    expect(r.findings.find((x) => x.id === 'k8s.rollout')).toMatchObject({
      status: 'warn',
      evidence: { manager: 'Argo CD' },
    });
  });

  it('the previous revision does not run: pass, and why', async () => {
    seed({ previousReady: 0 });
    const r = await inspectCluster(api(), { failureClass: 'image-not-found', image: TYPO_IMAGE });
    const f = r.findings.find((x) => x.id === 'k8s.rollout');
    expect(f?.status).toBe('pass');
    expect(f?.summary).toMatch(/no pod of revision 1 \(api-5f6d8c9b4\) is ready/);
  });
});

describe('rollback-deployment through the apply path', () => {
  it('dry run: the diff is the template, changing nothing', async () => {
    const r = await rollback(true);
    expect(r.status).toBe('dry-run');
    expect(r.diff).toEqual([
      `- Deployment payments/api template: ${TYPO_IMAGE}`,
      `  revision 2 (api-6c8d9f7b5): ${TYPO_IMAGE}`,
      `  revision 1 (api-5f6d8c9b4): ${GOOD}`,
      `+ Deployment payments/api template: ${GOOD}`,
    ]);
    expect(writes()).toEqual([]);
  });

  it('apply: one guarded JSON patch; the controller makes revision 1’s ReplicaSet revision 3; verified by its pods Running', async () => {
    const r = await rollback();
    expect(r.status).toBe('verified');
    expect(r.reason).toMatch(
      new RegExp(`^Deployment payments/api runs ${GOOD.replace(/\./g, '\\.')} again: 3/3 pods Running and ready`),
    );
    expect(r.applied).toEqual({
      deployment: 'payments/api',
      fromReplicaSet: 'api-6c8d9f7b5',
      toReplicaSet: 'api-5f6d8c9b4',
    });
    expect(writes()).toEqual(['PATCH /apis/apps/v1/namespaces/payments/deployments/api']);
    const patch = server.seen.find((s) => s.method === 'PATCH');
    expect(patch?.contentType).toBe('application/json-patch+json');
    const ops = JSON.parse(patch?.body ?? '[]') as { op: string; path: string; value: unknown }[];
    expect(ops[0]).toEqual({ op: 'replace', path: '/metadata/resourceVersion', value: '41001' });
    expect(ops[1]?.path).toBe('/spec/template');
    // kubectl rollout undo's template: the controller's pod-template-hash label removed.
    expect(ops[1]?.value).toEqual({
      metadata: { labels: { app: 'api' } },
      spec: { containers: [{ name: 'api', image: GOOD }] },
    });
    expect(deployment().spec.template.spec.containers[0]?.image).toBe(GOOD);
    expect(r.after).toContain(`revision 3 (api-5f6d8c9b4): ${GOOD}`);
  });

  it('the Deployment changed after it was read: 409, nothing changed, the record says failed', async () => {
    const port = rolloutPort(api(), TARGET, WAIT);
    const path = rolloutRollbackPath(TARGET, port, { failureClass: 'image-not-found' });
    await path.read();
    ((server.cluster.deployments ?? [])[0] as { metadata: { resourceVersion: string } }).metadata.resourceVersion =
      '41002';
    await expect(path.apply()).rejects.toThrow(/409|modified|Conflict/);
    expect(deployment().spec.template.spec.containers[0]?.image).toBe(TYPO_IMAGE);
  });

  it('pods of the rolled-back revision never start: verification fails and the failing template is put back', async () => {
    server.writes.behaviour.podsStart = false;
    try {
      const r = await rollback();
      expect(r.status).toBe('rolled-back');
      expect(r.verification?.reason).toMatch(/0\/3 pods of api-5f6d8c9b4 ready/);
      expect(writes()).toEqual([
        'PATCH /apis/apps/v1/namespaces/payments/deployments/api',
        'PATCH /apis/apps/v1/namespaces/payments/deployments/api',
      ]);
      expect(deployment().spec.template.spec.containers[0]?.image).toBe(TYPO_IMAGE);
    } finally {
      server.writes.behaviour.podsStart = true;
    }
  });

  it('a GitOps-managed Deployment is never patched: not applicable, change Git', async () => {
    seed({ gitops: { 'kustomize.toolkit.fluxcd.io/name': 'apps' } });
    const r = await rollback();
    expect(r.status).toBe('not-applicable');
    expect(r.reason).toMatch(/managed by Flux \(Kustomization\) \(kustomize\.toolkit\.fluxcd\.io\/name\)/);
    expect(writes()).toEqual([]);
  });

  it('the Deployment already runs revision 1’s template: not needed', async () => {
    await rollback();
    server.seen.length = 0;
    const again = await runApplyPath(
      rolloutRollbackPath({ ...TARGET, fromRevision: 2, toRevision: 3 }, rolloutPort(api(), TARGET, WAIT), {
        failureClass: 'image-not-found',
      }),
      { dryRun: false, now },
    );
    expect(again.status).toBe('not-needed');
    expect(writes()).toEqual([]);
  });

  it('only the door’s group may patch a Deployment (the reader group is refused by RBAC)', async () => {
    const reader = new KubeApiServer({ groups: ['pod-doctor'] });
    const url = await reader.start();
    try {
      reader.cluster = seededCluster(rolloutCluster());
      const readerApi = new ClusterApi(
        { name: 'prod-eu', region: 'eu-west-1', endpoint: url, certificateAuthorityData: reader.caData },
        new EksTokenCache({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      );
      const r = await runApplyPath(
        rolloutRollbackPath(TARGET, rolloutPort(readerApi, TARGET, WAIT), { failureClass: 'image-not-found' }),
        { dryRun: false, now },
      );
      expect(r.status).toBe('failed');
      expect(r.reason).toMatch(/patch.*deployments/i);
      expect(reader.forbidden.some((m) => /deployments/.test(m))).toBe(true);
    } finally {
      await reader.stop();
    }
  });
});
