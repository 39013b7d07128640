import type { PodFacts } from '../../../core/detect/pod-facts.js';
import {
  asStuckPod,
  type ClassifiedEvent,
  classifyPodEvents,
  type EventObject,
  type NodeObject,
  type PodObject,
  type StuckPod,
} from '../../../core/detect/stuck-pods.js';
import { disruptionBudgetMessage, forbiddenMessage, statusMessage, statusOf } from './api-errors.js';
import {
  ApiException,
  AppsV1Api,
  ClusterConnection,
  type ConnectionTimeouts,
  CoreV1Api,
  isTimeout,
  KubernetesUnreachableError,
  type PagedList,
  type PageReader,
} from './client.js';
import { readPages } from './paged-list.js';

export { KubernetesUnreachableError } from './client.js';

/** What EKS `DescribeCluster` says about how to reach a cluster's API server. */
export interface ClusterEndpoint {
  readonly name: string;
  readonly region: string;
  /** `https://<id>.<gr7>.<region>.eks.amazonaws.com` */
  readonly endpoint: string;
  /** `certificateAuthority.data`: base64 PEM of the cluster CA. */
  readonly certificateAuthorityData: string;
}

/** Signs (or reuses) a bearer token for a cluster; `invalidate` after the API server answered 401. */
export interface TokenSource {
  get(request: { clusterName: string; region: string }): Promise<string>;
  invalidate(request: { clusterName: string; region: string }): void;
}

export class KubernetesUnauthorizedError extends Error {
  override readonly name = 'KubernetesUnauthorizedError';
}
export class KubernetesForbiddenError extends Error {
  override readonly name = 'KubernetesForbiddenError';
}
export class KubernetesThrottledError extends Error {
  override readonly name = 'KubernetesThrottledError';
}
export class KubernetesInputError extends Error {
  override readonly name = 'KubernetesInputError';
}
/** The Eviction API answered 429 because a PodDisruptionBudget allows no disruption now. */
export class PodDisruptionBudgetError extends Error {
  override readonly name = 'PodDisruptionBudgetError';
}
/** 409: the object changed since it was read (a precondition on uid or resourceVersion failed). */
export class KubernetesConflictError extends Error {
  override readonly name = 'KubernetesConflictError';
}

export interface ClusterApiOptions extends ConnectionTimeouts {
  /** Attempts for 429 / 5xx answers. @default 3 */
  readonly maxAttempts?: number;
  /** Longest wait honoured from a Retry-After header. @default 5 s */
  readonly maxRetryAfterMs?: number;
  /** Items per list page. @default 250 */
  readonly pageSize?: number;
  /** Most pages read per list (a bound on a huge cluster). @default 40 */
  readonly maxPages?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * How a write that is not idempotent (an eviction, a patch guarded by a resourceVersion) recovers
 * from a 5xx, after which the server may or may not have applied it: it reads whether the write took
 * effect and returns the call's result when it did, or undefined when it did not (only then is the
 * write sent again). Without it a call is retried as a read is: GET, LIST, WATCH, a merge patch to a
 * fixed value, a DELETE guarded by the uid.
 */
export type Settle<T> = () => Promise<T | undefined>;

/** Node names are DNS names; pod names DNS-1123 subdomains. Anything else never reaches a selector. */
const DNS_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** A node, pod or namespace name for a selector or a path: a DNS name, or KubernetesInputError. */
export function selectorValue(value: string, what: string): string {
  if (!DNS_NAME.test(value)) throw new KubernetesInputError(`${what} is not a DNS name: ${value.slice(0, 80)}`);
  return value;
}

/**
 * The Kubernetes API of one EKS cluster, authenticated with an EKS access entry (bearer token of
 * the function's role). Retries 429/5xx with Retry-After (a write that is not idempotent only after
 * reading that it did not take effect: {@link Settle}), re-signs once after 401, restarts a list
 * whose `continue` token expired (410); 403 is reported as what the access policy does not allow.
 */
export class ClusterApi {
  private readonly opts: Required<Omit<ClusterApiOptions, keyof ConnectionTimeouts>>;
  private readonly timeouts: ConnectionTimeouts;

  constructor(
    private readonly cluster: ClusterEndpoint,
    private readonly tokens: TokenSource,
    options: ClusterApiOptions = {},
  ) {
    this.opts = {
      maxAttempts: options.maxAttempts ?? 3,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 5_000,
      pageSize: options.pageSize ?? 250,
      maxPages: options.maxPages ?? 40,
      sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
    };
    this.timeouts = { connectTimeoutMs: options.connectTimeoutMs, requestTimeoutMs: options.requestTimeoutMs };
  }

  private async config(): Promise<ClusterConnection> {
    const token = await this.tokens.get({ clusterName: this.cluster.name, region: this.cluster.region });
    return new ClusterConnection(
      { name: this.cluster.name, server: this.cluster.endpoint, caData: this.cluster.certificateAuthorityData, token },
      this.timeouts,
    );
  }

  /** Runs one API call with the retry rules above; a write that is not idempotent passes `settle`. */
  async call<T>(what: string, fn: (kc: ClusterConnection) => Promise<T>, settle?: Settle<T>): Promise<T> {
    let reSigned = false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn(await this.config());
      } catch (e) {
        if (isTimeout(e))
          throw new KubernetesUnreachableError(
            `${what}: cluster ${this.cluster.name} (${this.cluster.endpoint}) did not answer in time: ${(e as Error).message}; a private endpoint needs pod-doctor's functions in the cluster's VPC (README: private clusters)`,
          );
        const code = statusOf(e);
        if (code === 401 && !reSigned) {
          this.tokens.invalidate({ clusterName: this.cluster.name, region: this.cluster.region });
          reSigned = true;
          attempt -= 1;
          continue;
        }
        if (code === 401) {
          throw new KubernetesUnauthorizedError(
            `${what}: cluster ${this.cluster.name} does not accept pod-doctor's token (no access entry for its role, or the cluster's authentication mode is CONFIG_MAP)`,
          );
        }
        if (code === 403) throw new KubernetesForbiddenError(`${what}: ${forbiddenMessage(e)}`);
        if (code === 409) throw new KubernetesConflictError(`${what}: ${statusMessage(e) ?? 'conflict'}`);
        // An eviction refused by a PodDisruptionBudget is an answer, not throttling: never retried.
        const budget = code === 429 ? disruptionBudgetMessage(e) : undefined;
        if (budget) throw new PodDisruptionBudgetError(`${what}: ${budget}`);
        // The write may have been applied before the 5xx: sent again it would fail (409) or act twice.
        const settled = settle && code !== undefined && code >= 500 ? await settle() : undefined;
        if (settled !== undefined) return settled;
        if (code !== undefined && (code === 429 || code >= 500) && attempt < this.opts.maxAttempts) {
          await this.opts.sleep(this.retryAfterMs(e, attempt));
          continue;
        }
        if (code === 429) throw new KubernetesThrottledError(`${what}: throttled after ${attempt} attempts`);
        throw e;
      }
    }
  }

  private retryAfterMs(e: unknown, attempt: number): number {
    const header = e instanceof ApiException ? Number(e.headers?.['retry-after']) : Number.NaN;
    const ms = Number.isFinite(header) && header >= 0 ? header * 1000 : 250 * 2 ** attempt;
    return Math.min(ms, this.opts.maxRetryAfterMs);
  }

  /** Reads every page of a list, restarting once from the first page when `continue` expired (410). */
  async listAll<T>(what: string, page: PageReader<T>): Promise<T[]> {
    return (await this.listPaged(what, page)).items;
  }

  /** {@link listAll} with what a watch needs after it (see {@link readPages}). */
  listPaged<T>(what: string, page: PageReader<T>): Promise<PagedList<T>> {
    return readPages((cont) => this.call(what, (kc) => page(kc, cont)), this.opts.maxPages);
  }

  /** Pods stuck in ContainerCreating / ErrImagePull / ImagePullBackOff, on one node or cluster-wide. */
  async stuckPods(nodeName?: string): Promise<StuckPod[]> {
    const selectors = ['status.phase=Pending'];
    if (nodeName) selectors.push(`spec.nodeName=${selectorValue(nodeName, 'node name')}`);
    const pods = await this.listAll<PodObject>('list pods', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listPodForAllNamespaces({
        fieldSelector: selectors.join(','),
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    return pods.map(asStuckPod).filter((p): p is StuckPod => p !== undefined);
  }

  /** Every Pending pod as the API holds it (status as the kubelet wrote it): what corroborates pod events. */
  async pendingPods(): Promise<PodObject[]> {
    return this.listAll<PodObject>('list pods', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listPodForAllNamespaces({
        fieldSelector: 'status.phase=Pending',
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
  }

  /** The cause events of one pod, classified with the log catalogue and the pod's facts (pod-facts.ts). */
  async podEvents(namespace: string, name: string, facts: Omit<PodFacts, 'history'> = {}): Promise<ClassifiedEvent[]> {
    const selector = `involvedObject.kind=Pod,involvedObject.name=${selectorValue(name, 'pod name')}`;
    const events = await this.listAll<EventObject>('list events', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listNamespacedEvent({
        namespace: selectorValue(namespace, 'namespace'),
        fieldSelector: selector,
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    return classifyPodEvents(events, facts);
  }

  /** One pod, or undefined when it no longer exists (404). */
  async pod(namespace: string, name: string): Promise<PodObject | undefined> {
    try {
      return await this.call('read pod', (kc) =>
        kc.makeApiClient(CoreV1Api).readNamespacedPod({
          namespace: selectorValue(namespace, 'namespace'),
          name: selectorValue(name, 'pod name'),
        }),
      );
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw e;
    }
  }

  /** The Node object (OS image, runtime, labels: Auto Mode, Bottlerocket), or undefined (404). */
  async node(name: string): Promise<NodeObject | undefined> {
    try {
      return await this.call('read node', (kc) =>
        kc.makeApiClient(CoreV1Api).readNode({ name: selectorValue(name, 'node name') }),
      );
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw e;
    }
  }

  /** The aws-node DaemonSet (its container env holds the VPC CNI settings). */
  async awsNodeDaemonSet(): Promise<unknown> {
    return this.call('read daemonset kube-system/aws-node', (kc) =>
      kc.makeApiClient(AppsV1Api).readNamespacedDaemonSet({ namespace: 'kube-system', name: 'aws-node' }),
    );
  }

  /** aws-node pods on one node (label k8s-app=aws-node). */
  async awsNodePods(nodeName: string): Promise<PodObject[]> {
    return this.listAll<PodObject>('list aws-node pods', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listNamespacedPod({
        namespace: 'kube-system',
        labelSelector: 'k8s-app=aws-node',
        fieldSelector: `spec.nodeName=${selectorValue(nodeName, 'node name')}`,
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
  }

  /** ConfigMap kube-system/amazon-vpc-cni's data, or undefined when absent. */
  async vpcCniConfigMap(): Promise<Record<string, string> | undefined> {
    return (await this.vpcCniConfigMapObject())?.data;
  }

  /** Every pod on one node, any phase and namespace (drain, evictions). */
  async podsOnNode(nodeName: string): Promise<PodObject[]> {
    return this.listAll<PodObject>('list pods on node', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listPodForAllNamespaces({
        fieldSelector: `spec.nodeName=${selectorValue(nodeName, 'node name')}`,
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
  }

  /** ConfigMap kube-system/amazon-vpc-cni with its resourceVersion, or undefined when absent. */
  async vpcCniConfigMapObject(): Promise<{ data: Record<string, string>; resourceVersion?: string } | undefined> {
    try {
      const cm = await this.call('read configmap kube-system/amazon-vpc-cni', (kc) =>
        kc.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: 'kube-system', name: 'amazon-vpc-cni' }),
      );
      return {
        data: cm.data ?? {},
        ...(cm.metadata?.resourceVersion ? { resourceVersion: cm.metadata.resourceVersion } : {}),
      };
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw e;
    }
  }

  /** How many nodes the kubelet labelled `kubernetes.io/os=windows` (a label the node itself sets). */
  async windowsNodeCount(): Promise<number> {
    const nodes = await this.listAll<NodeObject>('list Windows nodes', (kc, cont) =>
      kc.makeApiClient(CoreV1Api).listNode({
        labelSelector: 'kubernetes.io/os=windows',
        limit: this.opts.pageSize,
        ...(cont ? { _continue: cont } : {}),
      }),
    );
    return nodes.length;
  }
}
