import { createHash } from 'node:crypto';
import { fieldMatches, labelsMatch, page, status } from './kube-api-helpers.js';

/**
 * Deployments and ReplicaSets (apps/v1) on the local API server, with the deployment controller's
 * part pod-doctor's rollback relies on: a JSON patch of a Deployment (RFC 6902 `replace` and `test`;
 * a `metadata.resourceVersion` other than the stored one answers 409 Conflict, as an update with a
 * stale resourceVersion does), after which the controller finds the ReplicaSet whose pod template
 * equals the Deployment's (without `pod-template-hash`), gives it the next revision
 * (`deployment.kubernetes.io/revision`: max + 1, as `kubectl rollout undo` shows), scales it to the
 * Deployment's replicas with pods that run, and scales the others to zero (their pods go).
 * pkg/controller/deployment/sync.go (getNewReplicaSet, SetNewReplicaSetAnnotations).
 */
type Obj = Record<string, unknown>;
/** The part of the recorded cluster (kube-api-server.ts) the apps answer from and change. */
export interface AppsCluster {
  pods: Obj[];
  /** Pods that run (drain and eviction targets). */
  runningPods?: Obj[];
  /** apps/v1 Deployments and their ReplicaSets (rollbacks). */
  deployments?: Obj[];
  replicaSets?: Obj[];
}
type RecordedCluster = AppsCluster;
interface Meta {
  name: string;
  namespace: string;
  uid: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind?: string; name?: string; uid?: string; controller?: boolean }[];
  creationTimestamp?: string;
}
type Workload = Obj & { metadata: Meta; spec: Obj & { template?: Obj; replicas?: number }; status?: Obj };

const REVISION = 'deployment.kubernetes.io/revision';
const meta = (o: Obj) => o.metadata as Meta;
const json = (v: unknown) => JSON.stringify(v, Object.keys(flat(v)).sort());
/** Every key at every depth (a stable key order for comparing templates). */
function flat(v: unknown, out: Record<string, true> = {}): Record<string, true> {
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      out[k] = true;
      flat(x, out);
    }
  return out;
}
/** A template without the controller's pod-template-hash label. */
function bare(t: unknown): unknown {
  const c = structuredClone(t ?? {}) as { metadata?: { labels?: Record<string, string> } };
  if (c.metadata?.labels) delete c.metadata.labels['pod-template-hash'];
  return c;
}

/** How the local deployment controller behaves (part of the server's ControllerBehaviour). */
export interface AppsBehaviour {
  /** The scaled-up ReplicaSet's pods run and are ready at once (the local kubelet pulls nothing). @default true */
  podsStart?: boolean;
}

export class LocalApps {
  private version = 30_000;

  constructor(
    private readonly cluster: () => RecordedCluster,
    readonly behaviour: AppsBehaviour = {},
  ) {}

  private get deployments(): Workload[] {
    return (this.cluster().deployments ?? []) as Workload[];
  }
  private get replicaSets(): Workload[] {
    return (this.cluster().replicaSets ?? []) as Workload[];
  }

  /** The answer to an apps/v1 request or a namespaced pod list, or undefined for any other path. */
  answer(
    method: string,
    path: string,
    q: URLSearchParams,
    body: string,
    contentType?: string,
  ): [number, unknown] | undefined {
    const list = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(replicasets|deployments)$/.exec(path);
    if (list && method === 'GET') {
      const items = (list[2] === 'replicasets' ? this.replicaSets : this.deployments).filter(
        (o) => meta(o).namespace === list[1] && labelsMatch(o, q.get('labelSelector')),
      );
      return [200, page(items, q, list[2] === 'replicasets' ? 'ReplicaSetList' : 'DeploymentList')];
    }
    const one = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(replicasets|deployments)\/([^/]+)$/.exec(path);
    if (one) {
      const found = (one[2] === 'replicasets' ? this.replicaSets : this.deployments).find(
        (o) => meta(o).namespace === one[1] && meta(o).name === one[3],
      );
      if (!found) return [404, status(404, 'NotFound', `${one[2]}.apps "${one[3]}" not found`)];
      if (method === 'GET') return [200, found];
      if (method === 'PATCH' && one[2] === 'deployments') return this.patch(found as Workload, body, contentType);
      return [405, status(405, 'MethodNotAllowed', `${method} is not supported on ${path}`)];
    }
    const pods = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(path);
    if (pods && method === 'GET' && pods[1] !== 'kube-system') {
      const c = this.cluster();
      const items = [...c.pods, ...(c.runningPods ?? [])].filter(
        (o) =>
          meta(o).namespace === pods[1] &&
          fieldMatches(o, q.get('fieldSelector')) &&
          labelsMatch(o, q.get('labelSelector')),
      );
      return [200, page(items, q, 'PodList')];
    }
    return undefined;
  }

  private patch(d: Workload, body: string, contentType?: string): [number, unknown] {
    if (contentType !== 'application/json-patch+json')
      return [
        415,
        status(415, 'UnsupportedMediaType', `the local server takes JSON patches of Deployments, not ${contentType}`),
      ];
    const ops = JSON.parse(body || '[]') as { op: string; path: string; value?: unknown }[];
    const next = structuredClone(d);
    for (const op of ops) {
      const rv = op.path === '/metadata/resourceVersion';
      if (rv && op.value !== d.metadata.resourceVersion)
        return [
          409,
          status(
            409,
            'Conflict',
            `Operation cannot be fulfilled on deployments.apps "${d.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
          ),
        ];
      if (op.op === 'test' || rv) continue;
      if (op.op !== 'replace' || op.path !== '/spec/template')
        return [422, status(422, 'Invalid', `the local server does not apply ${op.op} ${op.path}`)];
      next.spec.template = op.value as Obj;
    }
    Object.assign(d, next);
    this.version += 1;
    d.metadata.resourceVersion = String(this.version);
    this.sync(d);
    return [200, d];
  }

  /** The deployment controller's sync after a template change (rollback to an existing ReplicaSet, or a new one). */
  private sync(d: Workload): void {
    const owned = this.replicaSets.filter((r) =>
      r.metadata.ownerReferences?.some((o) => o.controller && o.uid === d.metadata.uid),
    );
    const revisions = owned.map((r) => Number(r.metadata.annotations?.[REVISION] ?? 0));
    const want = json(bare(d.spec.template));
    let current = owned.find((r) => json(bare(r.spec.template)) === want);
    if (!current) {
      const hash = createHash('sha256').update(want).digest('hex').slice(0, 10);
      current = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: `${d.metadata.name}-${hash}`,
          namespace: d.metadata.namespace,
          uid: `rs-${hash}`,
          labels: {
            ...((d.spec.template as { metadata?: { labels?: Record<string, string> } })?.metadata?.labels ?? {}),
            'pod-template-hash': hash,
          },
          annotations: {},
          ownerReferences: [{ kind: 'Deployment', name: d.metadata.name, uid: d.metadata.uid, controller: true }],
          creationTimestamp: new Date().toISOString(),
        },
        spec: { replicas: 0, template: structuredClone(d.spec.template) },
        status: { replicas: 0, readyReplicas: 0 },
      };
      this.replicaSets.push(current);
    }
    current.metadata.annotations = {
      ...current.metadata.annotations,
      [REVISION]: String(Math.max(0, ...revisions) + 1),
    };
    const replicas = d.spec.replicas ?? 1;
    for (const r of owned.filter((x) => x !== current)) {
      r.spec.replicas = 0;
      r.status = { replicas: 0, readyReplicas: 0 };
      this.removePodsOf(r);
    }
    current.spec.replicas = replicas;
    const ready = this.behaviour.podsStart === false ? 0 : replicas;
    current.status = { replicas, readyReplicas: ready, availableReplicas: ready };
    d.status = { replicas, updatedReplicas: replicas, readyReplicas: ready, availableReplicas: ready };
    this.removePodsOf(current);
    for (let i = 0; i < replicas; i++) this.cluster().runningPods?.push(this.pod(current, i, ready > 0));
  }

  private removePodsOf(r: Workload): void {
    const c = this.cluster();
    const mine = (p: Obj) => meta(p).ownerReferences?.some((o) => o.uid === r.metadata.uid);
    c.pods = c.pods.filter((p) => !mine(p));
    c.runningPods = (c.runningPods ?? []).filter((p) => !mine(p));
  }

  private pod(r: Workload, i: number, running: boolean): Obj {
    const t = r.spec.template as {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers?: { name: string; image: string }[] };
    };
    const name = `${r.metadata.name}-r${i}${Date.now().toString(36).slice(-4)}`;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: r.metadata.namespace,
        uid: `uid-${name}`,
        labels: { ...(t.metadata?.labels ?? {}), ...(r.metadata.labels ?? {}) },
        creationTimestamp: new Date().toISOString(),
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: r.metadata.name, uid: r.metadata.uid, controller: true },
        ],
      },
      spec: { ...(t.spec ?? {}) },
      status: {
        phase: running ? 'Running' : 'Pending',
        containerStatuses: (t.spec?.containers ?? []).map((c) => ({
          name: c.name,
          image: c.image,
          ready: running,
          restartCount: 0,
          state: running
            ? { running: { startedAt: new Date().toISOString() } }
            : { waiting: { reason: 'ContainerCreating' } },
        })),
      },
    };
  }
}
