import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';
import { type AdmissionDenial, type AdmissionObjects, LocalAdmission } from './admission.js';
import { accessKeyOfToken } from './eks-token.js';
import type { AppsCluster } from './kube-api-apps.js';
import { LocalEvents } from './kube-api-events.js';
import { fieldMatches, labelsMatch, page, REASONS, selfSignedCertificate, status } from './kube-api-helpers.js';
import { ClusterWrites, type ControllerBehaviour, mergePatch } from './kube-api-writes.js';
import { EventLog, eventList } from './kube-events.js';
import { allowed, attributesOf, forbiddenMessage, type Grant, groupGrants, type RequestAttributes } from './rbac.js';

/**
 * A local HTTPS Kubernetes API server on loopback serving recorded objects
 * (test/fixtures/kubernetes/cluster.json) with the API's own list semantics: `limit` pages and an
 * opaque `continue` token, field selectors on the fields pod-doctor uses, `Status` bodies for errors.
 * Its certificate is self-signed per run and handed to the client as an EKS cluster CA would be.
 * `faults` answers chosen requests with an HTTP status first (401, 403, 410, 429, 500). Writes
 * (cordon, pod deletion, eviction, the VPC CNI ConfigMap) are answered by {@link ClusterWrites}, events.k8s.io
 * Events by {@link LocalEvents}.
 */
export interface RecordedCluster extends AppsCluster {
  events: Record<string, Record<string, unknown>[]>;
  awsNodePods: Record<string, unknown>[];
  awsNodeDaemonSet: Record<string, unknown>;
  /** Absent: the API server answers 404 (no VPC CNI). */
  vpcCniConfigMap?: Record<string, unknown>;
  nodes: Record<string, unknown>[];
  /** policy/v1 PodDisruptionBudgets the Eviction API honours. */
  podDisruptionBudgets?: Record<string, unknown>[];
}

export interface KubeApiServerOptions {
  /**
   * Kubernetes groups of a caller the server does not tell apart (no {@link KubeApiServer.identities}).
   * @default ['pod-doctor', 'pod-doctor-actions']
   */
  readonly groups?: readonly string[];
  /** The RBAC manifest the authorizer reads. @default k8s/pod-doctor-rbac.yaml */
  readonly rbacFile?: string;
  /**
   * ValidatingAdmissionPolicies applied after authorization; null: none (a cluster < 1.30).
   * @default k8s/pod-doctor-admission-policy.yaml
   */
  readonly admissionFile?: string | null;
}

export interface Fault {
  /** Path prefix the fault applies to. */
  readonly path: string;
  readonly status: number;
  /** How many matching requests get the fault. @default 1 */
  times?: number;
  readonly headers?: Record<string, string>;
  /** Only requests that carry a `continue` token (an expired list continuation answers 410). */
  readonly onContinue?: boolean;
  /** Only watch requests. */
  readonly onWatch?: boolean;
  /** Only requests with this HTTP method. @default any method */
  readonly method?: string;
  /**
   * A write is applied first, then answered with the fault (the API server committed it to etcd
   * and the answer was lost: a 500 or 504 after the change took effect). @default false
   */
  readonly afterApplying?: boolean;
}

/** One event a watch sends, `afterMs` after the watch opened. */
export interface WatchStep {
  readonly afterMs: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: Record<string, unknown>;
}

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly authorization?: string;
  readonly body?: string;
  readonly contentType?: string;
}

export function recordedCluster(): RecordedCluster {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'test/fixtures/kubernetes/cluster.json'), 'utf8'));
}

export class KubeApiServer {
  readonly cert: string;
  readonly seen: SeenRequest[] = [];
  readonly faults: Fault[] = [];
  cluster: RecordedCluster = recordedCluster();
  /** Events the next watches send; a watch closes after its `timeoutSeconds` (as the API server does). */
  watchSteps: WatchStep[] = [];
  /** The cluster-wide core/v1 Event collection (list and watch with resourceVersions, 410 after compaction). */
  readonly coreEvents = new EventLog();
  /** The authorizer: the RBAC manifest's grants to the caller's groups (403 otherwise). */
  readonly grants: Grant[];
  readonly groups: readonly string[];
  /**
   * Who the callers are, as EKS authenticates them: the access key that signed the bearer token
   * (its presigned GetCallerIdentity URL) → the Kubernetes groups of that role's access entry. Set,
   * a token of any other key answers 401 and each caller gets its own groups' grants.
   */
  identities?: ReadonlyMap<string, readonly string[]>;
  private readonly rbacFile?: string;
  private readonly admission?: LocalAdmission;
  /** Writes and the DaemonSet controller's replacement of a deleted aws-node pod. */
  readonly writes: ClusterWrites;
  /** events.k8s.io/v1 Events written to the cluster (pod-doctor's write-back). */
  readonly events = new LocalEvents();
  /** Requests the authorizer refused. */
  readonly forbidden: string[] = [];
  private readonly server: Server;

  constructor(options: KubeApiServerOptions = {}, behaviour?: ControllerBehaviour) {
    const { key, cert } = selfSignedCertificate();
    this.cert = cert;
    this.groups = options.groups ?? ['pod-doctor', 'pod-doctor-actions'];
    this.rbacFile = options.rbacFile;
    this.grants = this.groups.flatMap((g) => groupGrants(g, options.rbacFile));
    if (options.admissionFile !== null) this.admission = new LocalAdmission(options.admissionFile);
    this.writes = new ClusterWrites(() => this.cluster, behaviour);
    this.server = createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
  }

  private handle(
    req: import('node:http').IncomingMessage,
    res: import('node:http').ServerResponse,
    body: string,
  ): void {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const contentType = req.headers['content-type']?.split(';')[0];
    this.seen.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(body ? { body } : {}),
      ...(contentType ? { contentType } : {}),
    });
    const attributes = attributesOf(req.method ?? 'GET', url);
    const caller = this.callerOf(req.headers.authorization);
    if (!caller) {
      this.forbidden.push('401: the token names no access entry');
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status(401, 'Unauthorized', 'Unauthorized')));
      return;
    }
    if (!allowed(caller.grants, attributes)) {
      const message = forbiddenMessage(
        attributes,
        'arn:aws:sts::111122223333:assumed-role/pod-doctor-kubernetes/session',
      );
      this.forbidden.push(message);
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status(403, 'Forbidden', message)));
      return;
    }
    if (attributes.verb === 'deletecollection' && attributes.resource === 'pods' && !attributes.subresource) {
      const [code, answer] = this.deletePods(attributes.namespace, url.searchParams, caller.groups);
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
      return;
    }
    const denial = this.admission?.check(
      attributes,
      caller.groups,
      this.admissionObjects(attributes, body, contentType),
    );
    if (denial) {
      this.forbidden.push(denial.message);
      res.writeHead(denial.code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status(denial.code, denial.reason, denial.message)));
      return;
    }
    if (attributes.verb === 'watch' && !this.faultFor(url)) {
      if (url.pathname === '/api/v1/events') this.coreEvents.watch(url.searchParams, res);
      else this.streamWatch(url, res);
      return;
    }
    const [code, answer, headers] = this.answer(url, req.method ?? 'GET', body, contentType);
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(answer));
  }

  /**
   * What admission sees of a write: the object before it (deletion, update), the object it creates
   * (the Eviction of `pods/eviction`: the pod it deletes passes no DELETE admission) or the object after
   * a merge patch.
   */
  private admissionObjects(a: RequestAttributes, body: string, contentType: string | undefined): AdmissionObjects {
    const current = () =>
      a.resource === 'pods'
        ? this.writes.pod(a.namespace ?? '', a.name ?? '')
        : a.resource === 'nodes'
          ? this.cluster.nodes.find((n) => (n.metadata as { name?: string }).name === a.name)
          : a.resource === 'configmaps' && a.name === 'amazon-vpc-cni'
            ? this.cluster.vpcCniConfigMap
            : undefined;
    if (a.verb === 'create') return { object: body ? (JSON.parse(body) as unknown) : undefined };
    if (a.verb === 'delete') return { oldObject: current() };
    if (a.verb !== 'patch' || !contentType?.includes('merge-patch')) return {};
    const before = current();
    return { oldObject: before, object: mergePatch(structuredClone(before), JSON.parse(body || '{}')) };
  }

  /**
   * A deletecollection of pods as the API server runs it: every pod of the namespace the selectors
   * match passes DELETE admission on its own; the admitted ones are deleted, and the first refusal is
   * the answer (DeleteCollection in k8s.io/apiserver/pkg/registry/generic/registry/store.go).
   */
  private deletePods(namespace: string | undefined, q: URLSearchParams, groups: readonly string[]): [number, unknown] {
    const pods = this.allPods().filter(
      (o) =>
        (namespace === undefined || fieldMatches(o, `metadata.namespace=${namespace}`)) &&
        fieldMatches(o, q.get('fieldSelector')) &&
        labelsMatch(o, q.get('labelSelector')),
    );
    let refused: AdmissionDenial | undefined;
    const deleted: unknown[] = [];
    for (const pod of pods) {
      const m = pod.metadata as { namespace: string; name: string };
      const a: RequestAttributes = {
        verb: 'delete',
        apiGroup: '',
        resource: 'pods',
        namespace: m.namespace,
        name: m.name,
      };
      const denial = this.admission?.check(a, groups, { oldObject: pod });
      if (denial) {
        this.forbidden.push(denial.message);
        refused ??= denial;
        continue;
      }
      deleted.push(
        this.writes.answer('DELETE', `/api/v1/namespaces/${m.namespace}/pods/${m.name}`, '', undefined)?.[1],
      );
    }
    if (refused) return [refused.code, status(refused.code, refused.reason, refused.message)];
    return [200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: deleted }];
  }

  /** The caller's groups and grants: by the token's signing key when identities are set, else the server's. */
  private callerOf(authorization: string | undefined): { groups: readonly string[]; grants: Grant[] } | undefined {
    if (!this.identities) return { groups: this.groups, grants: this.grants };
    const key = accessKeyOfToken(authorization);
    const groups = key ? this.identities.get(key) : undefined;
    return groups ? { groups, grants: groups.flatMap((g) => groupGrants(g, this.rbacFile)) } : undefined;
  }

  /** Base64 PEM, as `DescribeCluster` returns `certificateAuthority.data`. */
  get caData(): string {
    return Buffer.from(this.cert).toString('base64');
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const t of this.writes.timers) clearTimeout(t);
    this.coreEvents.dropWatches();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private faultFor(url: URL, method = 'GET'): Fault | undefined {
    return this.faults.find(
      (f) =>
        url.pathname.startsWith(f.path) &&
        (!f.method || f.method === method) &&
        (f.times ?? 1) > 0 &&
        (!f.onContinue || url.searchParams.has('continue')) &&
        (!f.onWatch || url.searchParams.get('watch') === 'true'),
    );
  }

  /** A watch: one JSON event per line, then the server closes it after `timeoutSeconds`. */
  private streamWatch(url: URL, res: import('node:http').ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const timers = this.watchSteps.map((step) =>
      setTimeout(() => res.write(`${JSON.stringify({ type: step.type, object: step.object })}\n`), step.afterMs),
    );
    const timeout = setTimeout(() => res.end(), Number(url.searchParams.get('timeoutSeconds') ?? 1) * 1000);
    res.on('close', () => {
      clearTimeout(timeout);
      for (const t of timers) clearTimeout(t);
    });
  }

  /** Every pod the server holds (stuck, aws-node, running). */
  private allPods(): Record<string, unknown>[] {
    return [...this.cluster.pods, ...this.cluster.awsNodePods, ...(this.cluster.runningPods ?? [])];
  }

  /** A write (or any events.k8s.io request): events by {@link LocalEvents}, the others by {@link ClusterWrites}. */
  private write(method: string, p: string, body: string, contentType: string | undefined, q: URLSearchParams) {
    return this.events.answer(method, p, q, body, contentType) ?? this.writes.answer(method, p, body, contentType, q);
  }

  /** An injected fault's answer (a write it lets through first is applied), if one matches. */
  private injected(
    url: URL,
    method: string,
    body: string,
    contentType: string | undefined,
  ): [number, unknown, Record<string, string>] | undefined {
    const fault = this.faultFor(url, method);
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.afterApplying && method !== 'GET') this.write(method, url.pathname, body, contentType, url.searchParams);
    return [
      fault.status,
      status(fault.status, REASONS[fault.status] ?? 'Unknown', `injected ${fault.status}`),
      fault.headers ?? {},
    ];
  }

  private answer(
    url: URL,
    method: string,
    body: string,
    contentType: string | undefined,
  ): [number, unknown, Record<string, string>] {
    const injected = this.injected(url, method, body, contentType);
    if (injected) return injected;
    const { searchParams: q, pathname: p } = url;
    const apps = this.writes.apps.answer(method, p, q, body, contentType);
    if (apps) return [...apps, {}];
    if (method !== 'GET' || p.startsWith('/apis/events.k8s.io/')) {
      const [code, answer] = this.write(method, p, body, contentType, q) ?? [
        405,
        status(405, 'MethodNotAllowed', `${method} is not supported on ${p}`),
      ];
      return [code, answer, {}];
    }
    if (p === '/api/v1/pods')
      return [
        200,
        page(
          this.allPods().filter((o) => fieldMatches(o, q.get('fieldSelector'))),
          q,
          'PodList',
        ),
        {},
      ];
    const events = eventList(this.coreEvents, this.cluster.events, p, q);
    if (events) return [...events, {}];
    const pod = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(p);
    if (pod) {
      const found = this.allPods().find((o) => fieldMatches(o, `metadata.namespace=${pod[1]},metadata.name=${pod[2]}`));
      return found ? [200, found, {}] : [404, status(404, 'NotFound', `pods "${pod[2]}" not found`), {}];
    }
    if (p === '/api/v1/nodes')
      return [
        200,
        page(
          this.cluster.nodes.filter((o) => labelsMatch(o, q.get('labelSelector'))),
          q,
          'NodeList',
        ),
        {},
      ];
    const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(p);
    if (node) {
      const found = this.cluster.nodes.find((o) => fieldMatches(o, `metadata.name=${node[1]}`));
      return found ? [200, found, {}] : [404, status(404, 'NotFound', `nodes "${node[1]}" not found`), {}];
    }
    if (p === '/api/v1/namespaces/kube-system/pods')
      return [
        200,
        page(
          this.allPods().filter(
            (o) =>
              fieldMatches(o, `metadata.namespace=kube-system`) &&
              fieldMatches(o, q.get('fieldSelector')) &&
              labelsMatch(o, q.get('labelSelector')),
          ),
          q,
          'PodList',
        ),
        {},
      ];
    if (p === '/apis/apps/v1/namespaces/kube-system/daemonsets/aws-node')
      return [200, this.cluster.awsNodeDaemonSet, {}];
    if (p === '/api/v1/namespaces/kube-system/configmaps/amazon-vpc-cni')
      return this.cluster.vpcCniConfigMap
        ? [200, this.cluster.vpcCniConfigMap, {}]
        : [404, status(404, 'NotFound', 'configmaps "amazon-vpc-cni" not found'), {}];
    return [404, status(404, 'NotFound', `the server could not find the requested resource (${p})`), {}];
  }
}
