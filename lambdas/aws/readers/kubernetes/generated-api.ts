// The Kubernetes API operations pod-doctor calls, sent the way @kubernetes/client-node's generated
// clients send them, with the library's own parts: its RequestContext and server configuration, its
// ObjectSerializer (query values, bodies, and responses into the library's models: V1Pod, Dates …),
// its HTTP library, middleware and ApiException. What the generator writes out as one method per
// operation (gen/apis/CoreV1Api.js: request factory + response processor) is here one description
// per operation (path, method, query parameters in the generator's order, body and response model)
// and one function that reads it. The generated classes cannot be tree-shaken (a class keeps every
// method): CoreV1Api.js and AppsV1Api.js were 485 KB of each Kubernetes bundle, parsed at every
// cold start for the eight reads below and the door's four writes (door/kubernetes-writes.ts) (issue 15, `npm run bench:init`).
// test/handlers/kubernetes-operations.test.ts builds every request here and with the generated factory
// and compares them (URL, method, headers, body), and the response handling for each status code.
import type {
  CoreV1EventList,
  V1ConfigMap,
  V1DaemonSet,
  V1Deployment,
  V1Node,
  V1NodeList,
  V1Pod,
  V1PodList,
  V1ReplicaSet,
  V1ReplicaSetList,
} from '@kubernetes/client-node';
import { RequiredError } from '@kubernetes/client-node/dist/gen/apis/baseapi.js';
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import {
  type Configuration,
  type ConfigurationOptions,
  mergeConfiguration,
} from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod, type RequestContext, type ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type {
  CoreV1ApiListEventForAllNamespacesRequest as ListAllEvents,
  CoreV1ApiListPodForAllNamespacesRequest as ListAllPods,
  CoreV1ApiListNamespacedEventRequest as ListEvents,
  CoreV1ApiListNodeRequest as ListNodes,
  CoreV1ApiListNamespacedPodRequest as ListPods,
  AppsV1ApiListNamespacedReplicaSetRequest as ListReplicaSets,
  CoreV1ApiReadNamespacedConfigMapRequest as ReadConfigMap,
  AppsV1ApiReadNamespacedDaemonSetRequest as ReadDaemonSet,
  AppsV1ApiReadNamespacedDeploymentRequest as ReadDeployment,
  CoreV1ApiReadNodeRequest as ReadNode,
  CoreV1ApiReadNamespacedPodRequest as ReadPod,
  AppsV1ApiReadNamespacedReplicaSetRequest as ReadReplicaSet,
} from '@kubernetes/client-node/dist/gen/types/ObjectParamAPI.js';

/** A query parameter: its name in the URL, the serializer's type, the request object's key when it differs. */
export type Query = readonly [name: string, type: 'string' | 'boolean' | 'number', key?: string];

/** One operation of the Kubernetes OpenAPI spec, as the generator reads it. */
export interface Operation {
  readonly api: 'CoreV1Api' | 'AppsV1Api' | 'EventsV1Api';
  readonly name: string;
  readonly method: HttpMethod;
  /** With `{name}` / `{namespace}` placeholders. */
  readonly path: string;
  /** Required parameters, in the generated method's order (checked in that order). */
  readonly required: readonly string[];
  readonly query: readonly Query[];
  readonly body?: { readonly type: string; readonly mediaTypes: readonly string[] };
  /** The model of every 2xx answer. */
  readonly returns: string;
}

export const PRETTY: Query = ['pretty', 'string'];
const LIST_HEAD: readonly Query[] = [
  ['allowWatchBookmarks', 'boolean'],
  ['continue', 'string', '_continue'],
  ['fieldSelector', 'string'],
  ['labelSelector', 'string'],
  ['limit', 'number'],
];
const LIST_TAIL: readonly Query[] = [
  ['resourceVersion', 'string'],
  ['resourceVersionMatch', 'string'],
  ['sendInitialEvents', 'boolean'],
  ['timeoutSeconds', 'number'],
  ['watch', 'boolean'],
];
export const POD = '/api/v1/namespaces/{namespace}/pods/{name}';
export const VPC_CNI = '/api/v1/namespaces/{namespace}/configmaps/{name}';

const read = (api: Operation['api'], name: string, path: string, returns: string, namespaced = true): Operation => ({
  api,
  name,
  method: HttpMethod.GET,
  path,
  required: namespaced ? ['name', 'namespace'] : ['name'],
  query: [PRETTY],
  returns,
});
const list = (name: string, path: string, returns: string, api: Operation['api'] = 'CoreV1Api'): Operation => ({
  api,
  name,
  method: HttpMethod.GET,
  path,
  required: ['namespace'],
  query: [PRETTY, ...LIST_HEAD, ...LIST_TAIL],
  returns,
});

/**
 * The reads pod-doctor calls (gen/apis/CoreV1Api.js, gen/apis/AppsV1Api.js of @kubernetes/client-node
 * 1.4). The writes (patch a node, delete or evict a pod, patch the VPC CNI ConfigMap) are the door's
 * (lambdas/aws/door/kubernetes-writes.ts): no other module can send them.
 */
export const OPERATIONS = {
  listPodForAllNamespaces: {
    ...list('listPodForAllNamespaces', '/api/v1/pods', 'V1PodList'),
    required: [],
    query: [...LIST_HEAD, PRETTY, ...LIST_TAIL],
  },
  listEventForAllNamespaces: {
    ...list('listEventForAllNamespaces', '/api/v1/events', 'CoreV1EventList'),
    required: [],
    query: [...LIST_HEAD, PRETTY, ...LIST_TAIL],
  },
  listNamespacedEvent: list('listNamespacedEvent', '/api/v1/namespaces/{namespace}/events', 'CoreV1EventList'),
  listNamespacedPod: list('listNamespacedPod', '/api/v1/namespaces/{namespace}/pods', 'V1PodList'),
  readNamespacedPod: read('CoreV1Api', 'readNamespacedPod', POD, 'V1Pod'),
  readNode: read('CoreV1Api', 'readNode', '/api/v1/nodes/{name}', 'V1Node', false),
  listNode: {
    ...list('listNode', '/api/v1/nodes', 'V1NodeList'),
    required: [],
    query: [PRETTY, ...LIST_HEAD, ...LIST_TAIL],
  },
  readNamespacedConfigMap: read('CoreV1Api', 'readNamespacedConfigMap', VPC_CNI, 'V1ConfigMap'),
  readNamespacedDaemonSet: read(
    'AppsV1Api',
    'readNamespacedDaemonSet',
    '/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}',
    'V1DaemonSet',
  ),
  // A pull failure's owner chain (pod → ReplicaSet → Deployment) and the Deployment's revisions (lambdas/core/rollout.ts).
  readNamespacedReplicaSet: read(
    'AppsV1Api',
    'readNamespacedReplicaSet',
    '/apis/apps/v1/namespaces/{namespace}/replicasets/{name}',
    'V1ReplicaSet',
  ),
  listNamespacedReplicaSet: list(
    'listNamespacedReplicaSet',
    '/apis/apps/v1/namespaces/{namespace}/replicasets',
    'V1ReplicaSetList',
    'AppsV1Api',
  ),
  readNamespacedDeployment: read(
    'AppsV1Api',
    'readNamespacedDeployment',
    '/apis/apps/v1/namespaces/{namespace}/deployments/{name}',
    'V1Deployment',
  ),
} as const satisfies Record<string, Operation>;

/** A request object of the library's ObjectParamAPI (`{ name, namespace, body, … }`). */
type Params = object;

/** The request of one operation, as the generated request factory builds it (configuration already merged). */
export async function buildRequest(op: Operation, params: Params, config: Configuration): Promise<RequestContext> {
  const p = params as Readonly<Record<string, unknown>>;
  for (const field of op.required) {
    if (p[field] === null || p[field] === undefined) throw new RequiredError(op.api, op.name, field);
  }
  const path = op.path
    .replace('{name}', encodeURIComponent(String(p.name)))
    .replace('{namespace}', encodeURIComponent(String(p.namespace)));
  const context = config.baseServer.makeRequestContext(path, op.method);
  context.setHeaderParam('Accept', 'application/json, */*;q=0.8');
  for (const [name, type, key = name] of op.query) {
    if (p[key] !== undefined) context.setQueryParam(name, ObjectSerializer.serialize(p[key], type, ''));
  }
  if (op.body) {
    const contentType = ObjectSerializer.getPreferredMediaType([...op.body.mediaTypes]);
    context.setHeaderParam('Content-Type', contentType);
    context.setBody(ObjectSerializer.stringify(ObjectSerializer.serialize(p.body, op.body.type, ''), contentType));
  }
  for (const auth of [config.authMethods.BearerToken, config.authMethods.default]) {
    await auth?.applySecurityAuthentication(context);
  }
  return context;
}

/** The answer to one operation, as the generated response processor reads it: the model, or ApiException. */
export async function readResponse<T>(op: Operation, response: ResponseContext): Promise<T> {
  const contentType = ObjectSerializer.normalizeMediaType(response.headers['content-type']);
  const code = response.httpStatusCode;
  if (code === 401) throw new ApiException(code, 'Unauthorized', undefined, response.headers);
  if (code >= 200 && code <= 299) {
    return ObjectSerializer.deserialize(
      ObjectSerializer.parse(await response.body.text(), contentType),
      op.returns,
      '',
    );
  }
  throw new ApiException(code, 'Unknown API Status Code!', await response.getBodyAsAny(), response.headers);
}

/** One call as the library's ObservableAPI makes it: request built with the merged configuration, middleware around send. */
export async function send<T>(op: Operation, p: Params, configuration: Configuration, options?: ConfigurationOptions) {
  const config = mergeConfiguration(configuration, options);
  let context = await buildRequest(op, p, config);
  for (const m of config.middleware) context = await m.pre(context).toPromise();
  let response = await config.httpApi.send(context).toPromise();
  for (const m of [...config.middleware].reverse()) response = await m.post(response).toPromise();
  return readResponse<T>(op, response);
}

/** The CoreV1 reads pod-doctor calls, with the library's parameter objects (ObjectCoreV1Api). */
export class CoreV1Api {
  constructor(private readonly configuration: Configuration) {}

  listPodForAllNamespaces(p: ListAllPods = {}, options?: ConfigurationOptions) {
    return send<V1PodList>(OPERATIONS.listPodForAllNamespaces, p, this.configuration, options);
  }
  listEventForAllNamespaces(p: ListAllEvents = {}, options?: ConfigurationOptions) {
    return send<CoreV1EventList>(OPERATIONS.listEventForAllNamespaces, p, this.configuration, options);
  }
  listNamespacedEvent(p: ListEvents, options?: ConfigurationOptions) {
    return send<CoreV1EventList>(OPERATIONS.listNamespacedEvent, p, this.configuration, options);
  }
  listNamespacedPod(p: ListPods, options?: ConfigurationOptions) {
    return send<V1PodList>(OPERATIONS.listNamespacedPod, p, this.configuration, options);
  }
  readNamespacedPod(p: ReadPod, options?: ConfigurationOptions) {
    return send<V1Pod>(OPERATIONS.readNamespacedPod, p, this.configuration, options);
  }
  readNode(p: ReadNode, options?: ConfigurationOptions) {
    return send<V1Node>(OPERATIONS.readNode, p, this.configuration, options);
  }
  listNode(p: ListNodes = {}, options?: ConfigurationOptions) {
    return send<V1NodeList>(OPERATIONS.listNode, p, this.configuration, options);
  }
  readNamespacedConfigMap(p: ReadConfigMap, options?: ConfigurationOptions) {
    return send<V1ConfigMap>(OPERATIONS.readNamespacedConfigMap, p, this.configuration, options);
  }
}

/** The AppsV1 methods pod-doctor calls (ObjectAppsV1Api's parameter object). */
export class AppsV1Api {
  constructor(private readonly configuration: Configuration) {}

  readNamespacedDaemonSet(p: ReadDaemonSet, options?: ConfigurationOptions) {
    return send<V1DaemonSet>(OPERATIONS.readNamespacedDaemonSet, p, this.configuration, options);
  }
  readNamespacedReplicaSet(p: ReadReplicaSet, options?: ConfigurationOptions) {
    return send<V1ReplicaSet>(OPERATIONS.readNamespacedReplicaSet, p, this.configuration, options);
  }
  listNamespacedReplicaSet(p: ListReplicaSets, options?: ConfigurationOptions) {
    return send<V1ReplicaSetList>(OPERATIONS.listNamespacedReplicaSet, p, this.configuration, options);
  }
  readNamespacedDeployment(p: ReadDeployment, options?: ConfigurationOptions) {
    return send<V1Deployment>(OPERATIONS.readNamespacedDeployment, p, this.configuration, options);
  }
}
