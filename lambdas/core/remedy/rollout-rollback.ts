import type { Finding } from '../contract/findings.js';
import type { ApplyPath, Check } from './apply-path.js';
import { type RollbackTarget, type RolloutFacts, rolloutVerdict, samePullInputs } from './rollout.js';

/**
 * Roll a Deployment back to the revision whose pods ran (issue 35, part 3), under the apply-path
 * discipline: re-read the Deployment, its ReplicaSets and its pods; re-check on them that the last
 * rollout is the pull failure's cause (lambdas/core/rollout.ts); put the previous ReplicaSet's pod
 * template back on the Deployment (`kubectl rollout undo`, guarded by the resourceVersion read);
 * verify by the pods of that template running; roll back by putting the failing template back.
 */

export interface RolloutRollbackTargetSpec extends RollbackTarget {
  readonly kind: 'rollback-deployment';
}

export interface RolloutRollbackPort {
  /** The Deployment's facts, or undefined when it is gone. */
  read(): Promise<RolloutFacts | undefined>;
  /**
   * Puts the pod template of ReplicaSet `replicaSet` on the Deployment (resourceVersion guard) and
   * waits, bounded, until that template's pods are ready; returns how long they took.
   */
  applyTemplateOf(replicaSet: string, resourceVersion?: string): Promise<{ readonly readyAfterSeconds?: number }>;
}

type State = RolloutFacts | undefined;

const current = (s: RolloutFacts) =>
  [...s.replicaSets]
    .filter((r) => r.deployment?.uid === s.deployment.uid && r.revision !== undefined)
    .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));

export function rolloutRollbackPath(
  t: RolloutRollbackTargetSpec,
  port: RolloutRollbackPort,
  o: { readonly failureClass: string; readonly windowMs?: number },
): ApplyPath<State> {
  const name = `${t.namespace}/${t.deployment}`;
  /** What the change needs from the state read before it: the two ReplicaSets, by name. */
  let from: string | undefined;
  let to: string | undefined;
  let readyAfterSeconds: number | undefined;
  let resourceVersion: string | undefined;
  return {
    id: 'rollback-deployment',
    change: `roll Deployment ${name} back from revision ${t.fromRevision} to revision ${t.toRevision}`,
    async read() {
      const s = await port.read();
      if (s && from === undefined) {
        from = s.replicaSets.find((r) => r.revision === t.fromRevision)?.name;
        to = s.replicaSets.find((r) => r.revision === t.toRevision)?.name;
        resourceVersion = s.deployment.resourceVersion;
      }
      return s;
    },
    causeHolds: (s) => causeOf(t, s, o),
    planned: (s) => plannedOf(t, s),
    render: (s) => renderOf(name, s),
    async apply() {
      if (!to || !from) throw new Error(`revision ${t.toRevision} or ${t.fromRevision} of ${name} has no ReplicaSet`);
      const r = await port.applyTemplateOf(to, resourceVersion);
      readyAfterSeconds = r.readyAfterSeconds;
      return { deployment: name, fromReplicaSet: from, toReplicaSet: to };
    },
    async verify(s) {
      if (!s) return { ok: false, reason: `Deployment ${name} is gone` };
      const top = current(s)[0];
      if (top?.name !== to)
        return { ok: false, reason: `the newest revision of ${name} is ${top?.name ?? 'none'}, not ${to}` };
      const stuck = s.stuck.filter((p) => p.replicaSet === to).length;
      if (top.readyReplicas < s.deployment.replicas || stuck > 0)
        return {
          ok: false,
          reason: `${top.readyReplicas}/${s.deployment.replicas} pods of ${to} ready, ${stuck} not started`,
        };
      return {
        ok: true,
        reason: `Deployment ${name} runs ${top.images.join(', ')} again: ${top.readyReplicas}/${s.deployment.replicas} pods Running and ready${readyAfterSeconds !== undefined ? ` after ${Math.round(readyAfterSeconds)} s` : ''}`,
        evidence: { revision: top.revision, replicaSet: top.name, ready: top.readyReplicas },
      };
    },
    async rollback(applied) {
      if (!applied.fromReplicaSet) throw new Error('no ReplicaSet to put back');
      await port.applyTemplateOf(applied.fromReplicaSet);
    },
  };
}

/** The cause on the Deployment's own objects, as the re-check before the change sees it. */
function causeOf(
  t: RolloutRollbackTargetSpec,
  s: State,
  o: { readonly failureClass: string; readonly windowMs?: number },
): Check {
  const name = `${t.namespace}/${t.deployment}`;
  if (!s) return { ok: false, cannot: true, reason: `Deployment ${name} does not exist` };
  const target = s.replicaSets.find((r) => r.revision === t.toRevision);
  if (target && samePullInputs(s.deployment, target) && (current(s)[0]?.readyReplicas ?? 0) >= s.deployment.replicas)
    return { ok: false, reason: `Deployment ${name} already runs the template of revision ${t.toRevision}` };
  const v = rolloutVerdict(s, o);
  if (v.status === 'gitops') return { ok: false, cannot: true, reason: v.reason };
  if (v.status === 'none') return { ok: false, cannot: true, reason: v.reason };
  if (v.target.fromRevision !== t.fromRevision || v.target.toRevision !== t.toRevision)
    return {
      ok: false,
      cannot: true,
      reason: `Deployment ${name} changed since the plan: now revision ${v.target.fromRevision} fails and ${v.target.toRevision} ran`,
    };
  return { ok: true, reason: v.reason };
}

/** The state after the change: the Deployment's template pulls like the revision that ran. */
function plannedOf(t: RolloutRollbackTargetSpec, s: State): State {
  const target = s?.replicaSets.find((r) => r.revision === t.toRevision);
  if (!s || !target) return s;
  return {
    ...s,
    deployment: {
      ...s.deployment,
      images: target.images,
      imagePullSecrets: target.imagePullSecrets,
      ...(target.serviceAccount ? { serviceAccount: target.serviceAccount } : {}),
    },
  };
}

function renderOf(name: string, s: State): readonly string[] {
  if (!s) return [`Deployment ${name}: absent`];
  return [
    `Deployment ${name} template: ${s.deployment.images.join(', ')}${s.deployment.imagePullSecrets.length ? ` (pull secrets ${s.deployment.imagePullSecrets.join(', ')})` : ''}`,
    ...current(s)
      .slice(0, 3)
      .map(
        // Ready counts change from one read to the next: they are the verification's, not the diff's
        // (an approval covers the diff, and a diff that changed is another request).
        (r) => `revision ${r.revision} (${r.name}): ${r.images.join(', ')}`,
      ),
  ];
}

const DNS = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const revision = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined);

/**
 * The rollback the inspection's `k8s.rollout` finding proposes (read from the API server's objects
 * by the Kubernetes function), or the recommendation when a GitOps controller manages the Deployment.
 * A finding whose evidence is not a Deployment and two revisions proposes nothing.
 */
export function rolloutRemedyTarget(findings: readonly Finding[]): {
  readonly target?: RolloutRollbackTargetSpec;
  readonly recommend?: string;
} {
  const f = findings.find((x) => x.id === 'k8s.rollout' && (x.status === 'fail' || x.status === 'warn'));
  if (!f) return {};
  const e = f.evidence;
  const from = revision(e.fromRevision);
  const to = revision(e.toRevision);
  if (typeof e.namespace !== 'string' || typeof e.deployment !== 'string' || !from || !to) return {};
  if (!DNS.test(e.namespace) || !DNS.test(e.deployment)) return {};
  const target: RolloutRollbackTargetSpec = {
    kind: 'rollback-deployment',
    namespace: e.namespace,
    deployment: e.deployment,
    fromRevision: from,
    toRevision: to,
  };
  if (f.status === 'warn')
    return {
      recommend: `recommend: ${f.summary.slice(0, 600)} (pod-doctor does not roll back a GitOps-managed workload)`,
    };
  return { target };
}
