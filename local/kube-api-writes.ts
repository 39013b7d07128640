import { LocalApps } from './kube-api-apps.js';
import type { RecordedCluster } from './kube-api-server.js';

/**
 * The writes pod-doctor makes, as the API server answers them: merge patches of a Node and of
 * ConfigMap amazon-vpc-cni (resourceVersion precondition → 409), pod deletion with a uid precondition
 * (the aws-node DaemonSet then re-creates its pod on the node), and the Eviction API (policy/v1)
 * honouring PodDisruptionBudgets for running pods (429 with cause DisruptionBudget, as pkg/registry/core/pod/storage/
 * eviction.go answers). Objects are removed at once unless `evictedGoneAfterMs` gives evicted pods a
 * termination period.
 * https://kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/
 */
type Obj = Record<string, unknown>;
type Meta = {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Obj;
  deletionTimestamp?: string;
};
export type Answer = [number, unknown];

const meta = (o: Obj) => (o.metadata ?? {}) as Meta;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** A `Status` failure body, with details (causes) when the API server gives them. */
export function failure(code: number, reason: string, message: string, details?: Obj): Obj {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

const PATCH_TYPES = ['application/merge-patch+json', 'application/strategic-merge-patch+json'];

/** How the local DaemonSet controller replaces a deleted aws-node pod. */
export interface ControllerBehaviour {
  /** The replacement pod is Ready this long after it is created; undefined: never Ready. @default 200 */
  awsNodeReadyAfterMs?: number;
  /**
   * An evicted pod terminates (deletionTimestamp set, still listed) this long before it is gone, as
   * the kubelet takes the pod's grace period; undefined: gone at once.
   */
  evictedGoneAfterMs?: number;
  /**
   * A GitOps controller owns ConfigMap amazon-vpc-cni (Argo CD self-heal, Flux): it puts the data
   * back right after any patch, before the next request. @default false
   */
  vpcCniConfigMapSelfHeals?: boolean;
  /**
   * The workload controllers (ReplicaSet, StatefulSet, Job, DaemonSet) re-create a pod they own when
   * it is evicted: a new pod (a StatefulSet keeps the name) on the same node, created now, which
   * runs and is Ready `readyAfterMs` later; undefined `readyAfterMs`: it stays in ContainerCreating.
   * Absent: evicted pods are not re-created.
   */
  recreateEvicted?: { readyAfterMs?: number };
  /** Pods of the ReplicaSet a Deployment rolls to run and are ready at once (local/kube-api-apps.ts). @default true */
  podsStart?: boolean;
}

const RECREATING = ['ReplicaSet', 'StatefulSet', 'Job', 'DaemonSet'];

export class ClusterWrites {
  private revision = 20_000;
  readonly timers = new Set<NodeJS.Timeout>();
  /** Deployments, ReplicaSets and the deployment controller's sync after a rollback. */
  readonly apps: LocalApps;

  constructor(
    private readonly cluster: () => RecordedCluster,
    readonly behaviour: ControllerBehaviour = { awsNodeReadyAfterMs: 200 },
  ) {
    this.apps = new LocalApps(cluster, behaviour);
  }

  private nextVersion(): string {
    this.revision += 1;
    return String(this.revision);
  }

  /** The answer to a write, or undefined when the path is not one the server writes. */
  answer(
    method: string,
    path: string,
    body: string,
    contentType: string | undefined,
    query: URLSearchParams = new URLSearchParams(),
  ): Answer | undefined {
    const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(path);
    if (method === 'PATCH' && node) return this.patch(contentType, body, () => this.find('nodes', node[1]));
    if (method === 'PATCH' && path === '/api/v1/namespaces/kube-system/configmaps/amazon-vpc-cni')
      return this.patchVpcCni(contentType, body);
    const pod = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(\/eviction)?$/.exec(path);
    if (method === 'DELETE' && pod && !pod[3]) return this.deletePod(pod[1], pod[2], body);
    if (method === 'POST' && pod?.[3]) return this.evict(pod[1], pod[2], query.get('dryRun') === 'All');
    return undefined;
  }

  /** The VPC CNI ConfigMap patch; a self-healing owner restores the data it had right after answering. */
  private patchVpcCni(contentType: string | undefined, body: string): Answer {
    const cm = () => this.cluster().vpcCniConfigMap;
    const before = structuredClone(cm()?.data);
    const [code, answered] = this.patch(contentType, body, cm, 'configmaps');
    const now = cm();
    if (code !== 200 || !this.behaviour.vpcCniConfigMapSelfHeals || !now) return [code, answered];
    const response = structuredClone(answered);
    now.data = before;
    now.metadata = { ...meta(now), resourceVersion: this.nextVersion() };
    return [code, response];
  }

  private find(kind: 'nodes', name: string): Obj | undefined {
    return this.cluster()[kind].find((o) => meta(o).name === name);
  }

  private patch(contentType: string | undefined, body: string, target: () => Obj | undefined, kind = 'nodes'): Answer {
    if (!PATCH_TYPES.includes(contentType ?? ''))
      return [
        415,
        failure(415, 'UnsupportedMediaType', `the local API server applies merge patches only, not ${contentType}`),
      ];
    const obj = target();
    if (!obj) return [404, failure(404, 'NotFound', `${kind} not found`)];
    const patch = JSON.parse(body) as Obj;
    const wanted = (patch.metadata as Meta | undefined)?.resourceVersion;
    if (wanted && wanted !== meta(obj).resourceVersion)
      return [
        409,
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${kind} "${meta(obj).name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name: meta(obj).name, kind },
        ),
      ];
    const next = mergePatch(obj, patch) as Obj;
    next.metadata = { ...meta(next), resourceVersion: this.nextVersion() };
    for (const key of Object.keys(obj)) delete obj[key];
    Object.assign(obj, next);
    return [200, obj];
  }

  /** Every pod the server holds, with the list it lives in. */
  private locate(namespace: string, name: string): { list: Obj[]; pod: Obj } | undefined {
    const c = this.cluster();
    for (const list of [c.pods, c.awsNodePods, c.runningPods ?? []]) {
      const pod = list.find((p) => meta(p).namespace === namespace && meta(p).name === name);
      if (pod) return { list, pod };
    }
    return undefined;
  }

  /** A pod the server holds, or undefined. */
  pod(namespace: string, name: string): Obj | undefined {
    return this.locate(namespace, name)?.pod;
  }

  private remove(found: { list: Obj[]; pod: Obj }): void {
    found.list.splice(found.list.indexOf(found.pod), 1);
  }

  private deletePod(namespace: string, name: string, body: string): Answer {
    const found = this.locate(namespace, name);
    if (!found) return [404, failure(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' })];
    const uid = body ? (JSON.parse(body) as { preconditions?: { uid?: string } }).preconditions?.uid : undefined;
    if (uid && uid !== meta(found.pod).uid)
      return [
        409,
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on Pod "${name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta(found.pod).uid}`,
          { name, kind: 'Pod' },
        ),
      ];
    this.remove(found);
    if (found.list === this.cluster().awsNodePods) this.replaceAwsNode(found.pod);
    return [200, { ...found.pod, metadata: { ...meta(found.pod), deletionTimestamp: new Date().toISOString() } }];
  }

  /** The DaemonSet controller: a new aws-node pod on the same node, Ready after a while (or never). */
  private replaceAwsNode(old: Obj): void {
    const suffix = Math.random().toString(36).slice(2, 7);
    const status = structuredClone(old.status ?? {}) as {
      phase?: string;
      containerStatuses?: { ready?: boolean; restartCount?: number; state?: Obj; lastState?: Obj }[];
    };
    status.phase = 'Running';
    for (const c of status.containerStatuses ?? []) {
      c.ready = false;
      c.restartCount = 0;
      c.state = { running: { startedAt: new Date().toISOString() } };
      delete c.lastState;
    }
    const pod: Obj = {
      ...old,
      metadata: {
        ...meta(old),
        name: `aws-node-${suffix}`,
        uid: `aws-node-uid-${suffix}`,
        resourceVersion: this.nextVersion(),
      },
      status,
    };
    this.cluster().awsNodePods.push(pod);
    const after = this.behaviour.awsNodeReadyAfterMs;
    if (after === undefined) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      for (const c of status.containerStatuses ?? []) c.ready = true;
    }, after);
    this.timers.add(t);
  }

  /** The Eviction API; a dry run (`dryRun=All`) answers the same and changes nothing. */
  private evict(namespace: string, name: string, dryRun: boolean): Answer {
    const found = this.locate(namespace, name);
    if (!found) return [404, failure(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' })];
    const budgets = canIgnoreBudgets(found.pod) ? [] : this.budgetsOf(namespace, found.pod);
    const blocking = budgets.find((b) => Number((b.status as Obj)?.disruptionsAllowed ?? 0) < 1);
    if (blocking) return budgetRefusal(blocking);
    if (dryRun) return [201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }];
    for (const b of budgets) {
      const s = b.status as { disruptionsAllowed: number; currentHealthy?: number };
      s.disruptionsAllowed -= 1;
      if (s.currentHealthy !== undefined) s.currentHealthy -= 1;
    }
    this.terminate(found);
    this.recreate(found.pod);
    return [201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }];
  }

  /** The PodDisruptionBudgets in the pod's namespace whose selector matches its labels. */
  private budgetsOf(namespace: string, pod: Obj): Obj[] {
    const labels = (meta(pod).labels ?? {}) as Record<string, string>;
    return (this.cluster().podDisruptionBudgets ?? []).filter((b) => {
      const selector = ((b.spec as Obj)?.selector as { matchLabels?: Record<string, string> })?.matchLabels ?? {};
      return meta(b).namespace === namespace && Object.entries(selector).every(([k, v]) => labels[k] === v);
    });
  }

  /** The pod is gone at once, or terminates for `evictedGoneAfterMs` first. */
  private terminate(found: { list: Obj[]; pod: Obj }): void {
    const after = this.behaviour.evictedGoneAfterMs;
    if (after === undefined) {
      this.remove(found);
      return;
    }
    found.pod.metadata = { ...meta(found.pod), deletionTimestamp: new Date().toISOString() };
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (found.list.includes(found.pod)) this.remove(found);
    }, after);
    this.timers.add(t);
  }

  /** The owning controller's new pod for an evicted one (see `recreateEvicted`). */
  private recreate(old: Obj): void {
    const how = this.behaviour.recreateEvicted;
    const owner = (
      (meta(old) as { ownerReferences?: { kind?: string; name?: string; controller?: boolean }[] }).ownerReferences ??
      []
    ).find((o) => o.controller);
    if (!how || !owner || !RECREATING.includes(owner.kind ?? '')) return;
    const suffix = Math.random().toString(36).slice(2, 7);
    const status = {
      phase: 'Pending',
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
      ],
    };
    const pod: Obj = {
      ...structuredClone(old),
      metadata: {
        ...structuredClone(meta(old)),
        name: owner.kind === 'StatefulSet' ? meta(old).name : `${owner.name}-${suffix}`,
        uid: `recreated-${suffix}`,
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        resourceVersion: this.nextVersion(),
      },
      status,
    };
    this.cluster().pods.push(pod);
    if (how.readyAfterMs === undefined) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      Object.assign(status, {
        phase: 'Running',
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: new Date().toISOString() } } },
        ],
        conditions: [{ type: 'Ready', status: 'True' }],
      });
    }, how.readyAfterMs);
    this.timers.add(t);
  }
}

/**
 * The API server evicts a Pending, Succeeded or Failed pod, or one already terminating, without
 * consulting its budgets (canIgnorePDB in pkg/registry/core/pod/storage/eviction.go): a pod that does
 * not run takes nothing from the budget. Pods stuck in ContainerCreating or ErrImagePull are Pending.
 */
function canIgnoreBudgets(pod: Obj): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return ['Pending', 'Succeeded', 'Failed'].includes(phase ?? '') || meta(pod).deletionTimestamp !== undefined;
}

/** The Eviction API's 429 when a budget allows no disruption (cause DisruptionBudget). */
function budgetRefusal(blocking: Obj): Answer {
  const s = blocking.status as { desiredHealthy?: number; currentHealthy?: number };
  return [
    429,
    failure(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.", {
      causes: [
        {
          reason: 'DisruptionBudget',
          message: `The disruption budget ${meta(blocking).name} needs ${s.desiredHealthy} healthy pods and has ${s.currentHealthy} currently`,
        },
      ],
    }),
  ];
}
