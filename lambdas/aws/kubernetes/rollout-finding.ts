import { type Finding, finding } from '../../core/contract/findings.js';
import type { StuckPod } from '../../core/detect/stuck-pods.js';
import { rollbackByHand, rolloutVerdict } from '../../core/remedy/rollout.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { deploymentOfPod, rolloutFacts } from '../readers/kubernetes/rollout-reader.js';

/** Deployments looked at per incident (the stuck pods' owners, first ones). */
const MAX_DEPLOYMENTS = 3;

/**
 * `k8s.rollout`: whether a Deployment's last rollout is why the incident's pods cannot pull
 * (lambdas/core/rollout.ts), from the stuck pods' owner chain as the API server keeps it. `fail`:
 * the rollout is the cause and the rollback is planned (evidence: the Deployment and the two
 * revisions); `warn`: the same, but a GitOps controller manages the Deployment (change Git);
 * `pass`: no rollout explains it (why, per Deployment).
 */
export async function rolloutFinding(
  api: ClusterApi,
  stuck: readonly StuckPod[],
  failureClass: string,
): Promise<Finding> {
  const owned = stuck.filter((p) => p.controller === 'ReplicaSet');
  const seen = new Map<string, { namespace: string; name: string; uid: string }>();
  for (const p of owned) {
    if (seen.size >= MAX_DEPLOYMENTS) break;
    const d = await deploymentOfPod(api, p);
    if (d) seen.set(`${d.namespace}/${d.name}`, d);
  }
  if (seen.size === 0)
    return finding('k8s.rollout', 'pass', 'no stuck pod belongs to a Deployment: no rollout to roll back', {
      pods: owned.length,
    });
  const verdicts: { deployment: string; status: string; reason: string }[] = [];
  for (const [key, d] of seen) {
    const r = await rolloutFacts(api, d.namespace, d.name);
    // The Deployment read by name must be the one the ReplicaSet names as its owner (same uid).
    if (!r || r.facts.deployment.uid !== d.uid) {
      verdicts.push({ deployment: key, status: 'none', reason: 'the Deployment was replaced since' });
      continue;
    }
    const v = rolloutVerdict(r.facts, { failureClass });
    if (v.status !== 'none') {
      const gitops = v.status === 'gitops';
      return finding(
        'k8s.rollout',
        gitops ? 'warn' : 'fail',
        `Deployment ${key}: ${v.reason}`,
        { ...v.target, rollout: v.status, ...(gitops ? { manager: v.manager } : {}) },
        gitops ? `change Git back to revision ${v.target.toRevision}'s images` : rollbackByHand(v.target),
      );
    }
    verdicts.push({ deployment: key, status: v.status, reason: v.reason });
  }
  return finding(
    'k8s.rollout',
    'pass',
    `no rollout explains the failure: ${verdicts.map((v) => `${v.deployment}: ${v.reason}`).join('; ')}`,
    { deployments: verdicts },
  );
}
