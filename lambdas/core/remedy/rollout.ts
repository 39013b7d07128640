/**
 * Rollout rollback for pull failures (issue 35, part 3), pure: whether a Deployment's last rollout
 * is why its pods cannot pull, read from what the API server and the controllers keep — the stuck
 * pods' owner chain (pod → ReplicaSet → Deployment, `ownerReferences`), the revisions the deployment
 * controller writes on its ReplicaSets (`deployment.kubernetes.io/revision`), the ReplicaSets' ready
 * counts (the kubelets' readiness, summed by the ReplicaSet controller) and the pods' waiting reasons
 * (kubelet). Never from log or event text: a line may have opened the incident, it never names the
 * Deployment or the revision.
 */

/** The annotation the deployment controller writes on each ReplicaSet it owns. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** Waiting reasons (kubelet) of a container whose image cannot be pulled. */
export const PULL_WAITING_REASONS = ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName'] as const;

/** Classes whose cause a rollout can be. */
export const ROLLOUT_CLASSES = ['image-not-found', 'registry-auth'] as const;

/** How long after the pod template changed a pull failure still counts as the rollout's. @default 30 min */
export const ROLLOUT_WINDOW_MS = 30 * 60_000;

/** What matters to a pull in a pod template: the images, the pull secrets, the service account. */
export interface PullInputs {
  readonly images: readonly string[];
  readonly imagePullSecrets: readonly string[];
  readonly serviceAccount?: string;
}

export interface ReplicaSetView extends PullInputs {
  readonly name: string;
  readonly uid: string;
  /** `deployment.kubernetes.io/revision`; undefined when absent or not a number. */
  readonly revision?: number;
  readonly createdAt: string;
  /** The controlling Deployment (ownerReferences), by name and uid. */
  readonly deployment?: { readonly name: string; readonly uid: string };
  readonly replicas: number;
  readonly readyReplicas: number;
}

export interface DeploymentView extends PullInputs {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly replicas: number;
  readonly paused: boolean;
}

/** A pod of the Deployment that does not start: its ReplicaSet, when it was created, why it waits. */
export interface StuckRolloutPod {
  readonly name: string;
  readonly replicaSet: string;
  readonly createdAt: string;
  /** The kubelet's waiting reasons of its containers (ErrImagePull, ImagePullBackOff, …). */
  readonly waiting: readonly string[];
}

/** One Deployment as the API server shows it: the object, its ReplicaSets, its pods that do not start. */
export interface RolloutFacts {
  readonly deployment: DeploymentView;
  readonly replicaSets: readonly ReplicaSetView[];
  readonly stuck: readonly StuckRolloutPod[];
}

/** The rollback: this Deployment, from the revision whose pods fail back to the one whose pods ran. */
export interface RollbackTarget {
  readonly namespace: string;
  readonly deployment: string;
  readonly fromRevision: number;
  readonly toRevision: number;
}

export type RolloutVerdict =
  | { readonly status: 'rollback'; readonly target: RollbackTarget; readonly reason: string }
  /** The rollout is the cause, but a GitOps controller owns the Deployment: change Git instead. */
  | { readonly status: 'gitops'; readonly target: RollbackTarget; readonly manager: string; readonly reason: string }
  | { readonly status: 'none'; readonly reason: string };

/** Label and annotation prefixes of the GitOps controllers that own what they deploy (self-heal, reconcile). */
const GITOPS: readonly { readonly prefix: string; readonly manager: string }[] = [
  { prefix: 'argocd.argoproj.io/', manager: 'Argo CD' },
  { prefix: 'kustomize.toolkit.fluxcd.io/', manager: 'Flux (Kustomization)' },
  { prefix: 'helm.toolkit.fluxcd.io/', manager: 'Flux (HelmRelease)' },
];

/** The GitOps controller that manages a Deployment (by its labels or annotations), and the key that says so. */
export function gitOpsManager(
  d: Pick<DeploymentView, 'labels' | 'annotations'>,
): { readonly manager: string; readonly key: string } | undefined {
  for (const key of [...Object.keys(d.labels), ...Object.keys(d.annotations)].sort()) {
    const g = GITOPS.find((x) => key.startsWith(x.prefix));
    if (g) return { manager: g.manager, key };
  }
  return undefined;
}

/** The revision annotation as a number (the controller writes a decimal integer), else undefined. */
export function revisionOf(annotations: Readonly<Record<string, string>> | undefined): number | undefined {
  const v = annotations?.[REVISION_ANNOTATION];
  return v !== undefined && /^\d{1,9}$/.test(v) ? Number(v) : undefined;
}

const key = (p: PullInputs) =>
  JSON.stringify([[...p.images].sort(), [...p.imagePullSecrets].sort(), p.serviceAccount ?? 'default']);
/** Whether two templates pull the same way (same images, pull secrets and service account). */
export const samePullInputs = (a: PullInputs, b: PullInputs) => key(a) === key(b);

const owned = (f: RolloutFacts) =>
  f.replicaSets
    .filter((r) => r.deployment?.uid === f.deployment.uid && r.revision !== undefined)
    .sort((a, b) => (b.revision ?? 0) - (a.revision ?? 0));

const none = (reason: string): RolloutVerdict => ({ status: 'none', reason });
const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/**
 * Whether the Deployment's last rollout is the cause of its pods' pull failures, and the rollback:
 * the pods that fail belong to the newest revision, pull-wise it differs from the one before, they
 * started failing within `windowMs` of the template change, and the previous revision's pods run
 * (its ReplicaSet has ready replicas). A GitOps-managed Deployment gets the same answer with
 * `gitops`: the change belongs in Git.
 */
export function rolloutVerdict(
  f: RolloutFacts,
  o: { readonly failureClass: string; readonly windowMs?: number },
): RolloutVerdict {
  const d = f.deployment;
  const name = `${d.namespace}/${d.name}`;
  if (!(ROLLOUT_CLASSES as readonly string[]).includes(o.failureClass))
    return none(`${o.failureClass} is not a pull failure a rollout can cause`);
  if (d.paused) return none(`Deployment ${name} is paused: its rollout is someone's work in progress`);
  const [current, previous] = owned(f);
  if (!current) return none(`Deployment ${name} owns no ReplicaSet with a revision`);
  const failing = f.stuck.filter((p) => p.waiting.some((w) => (PULL_WAITING_REASONS as readonly string[]).includes(w)));
  if (failing.length === 0) return none(`no pod of Deployment ${name} waits on an image pull (kubelet's status)`);
  const elsewhere = failing.filter((p) => p.replicaSet !== current.name);
  if (elsewhere.length)
    return none(
      `pods of an older revision than ${current.revision} fail to pull too (${elsewhere[0]?.name}): not the rollout`,
    );
  if (!previous) return none(`Deployment ${name} has no revision before ${current.revision}: nothing to roll back to`);
  if (samePullInputs(current, previous))
    return none(
      `revision ${current.revision} pulls the same images as ${previous.revision}: the rollout changed no pull`,
    );
  if (previous.readyReplicas < 1)
    return none(
      `no pod of revision ${previous.revision} (${previous.name}) is ready: a rollback would not bring running pods back`,
    );
  const changedAt = Date.parse(current.createdAt);
  const firstFailure = Math.min(...failing.map((p) => Date.parse(p.createdAt)));
  const after = firstFailure - changedAt;
  const windowMs = o.windowMs ?? ROLLOUT_WINDOW_MS;
  if (!Number.isFinite(after) || after < -60_000 || after > windowMs)
    return none(
      `the failing pods started ${Number.isFinite(after) ? minutes(after) : 'an unknown time'} after revision ${current.revision}: outside the ${minutes(windowMs)} window`,
    );
  const target: RollbackTarget = {
    namespace: d.namespace,
    deployment: d.name,
    fromRevision: current.revision ?? 0,
    toRevision: previous.revision ?? 0,
  };
  const reason = `${failing.length} pod(s) of revision ${current.revision} (${current.images.join(', ')}) cannot pull since ${minutes(after)} after the template changed; revision ${previous.revision} (${previous.images.join(', ')}) has ${previous.readyReplicas} ready pod(s)`;
  const gitops = gitOpsManager(d);
  if (gitops)
    return {
      status: 'gitops',
      target,
      manager: gitops.manager,
      reason: `${reason}; ${name} is managed by ${gitops.manager} (${gitops.key}): a rollback in the cluster would be reverted at its next sync and Git would still name the failing image, so change Git back to ${previous.images.join(', ')}`,
    };
  return { status: 'rollback', target, reason };
}

/** The command a human runs instead (no cluster access, or observe mode). */
export function rollbackByHand(t: RollbackTarget): string {
  return `kubectl -n ${t.namespace} rollout undo deployment/${t.deployment} --to-revision=${t.toRevision}`;
}
