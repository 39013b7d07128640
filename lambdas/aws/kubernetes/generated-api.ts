// The generated request factories and response processors of @kubernetes/client-node, called
// directly. The library's ObjectParamAPI classes (parameter objects) wrap its ObservableAPI classes
// (middleware as observables), which wrap these two: two layers of generated code for every method
// of every API group, ~260 KB of CoreV1 and AppsV1 wrappers in a Kubernetes bundle, compiled at each
// cold start (issue 15, `npm run bench:init`). Only the methods pod-doctor calls are mapped here,
// each with the library's own parameter order (types/ObjectParamAPI.js) and its own send path
// (types/ObservableAPI.js: configuration merge, middleware pre, httpApi.send, middleware post, response processor).
import {
  AppsV1ApiRequestFactory,
  AppsV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/AppsV1Api.js';
import {
  CoreV1ApiRequestFactory,
  CoreV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import {
  type Configuration,
  type ConfigurationOptions,
  mergeConfiguration,
} from '@kubernetes/client-node/dist/gen/configuration.js';
import type { HttpInfo, RequestContext, ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import type {
  CoreV1ApiCreateNamespacedPodEvictionRequest as CreateEviction,
  CoreV1ApiDeleteNamespacedPodRequest as DeletePod,
  CoreV1ApiListPodForAllNamespacesRequest as ListAllPods,
  CoreV1ApiListNamespacedEventRequest as ListEvents,
  CoreV1ApiListNamespacedPodRequest as ListPods,
  CoreV1ApiPatchNamespacedConfigMapRequest as PatchConfigMap,
  CoreV1ApiPatchNodeRequest as PatchNode,
  CoreV1ApiReadNamespacedConfigMapRequest as ReadConfigMap,
  AppsV1ApiReadNamespacedDaemonSetRequest as ReadDaemonSet,
  CoreV1ApiReadNodeRequest as ReadNode,
  CoreV1ApiReadNamespacedPodRequest as ReadPod,
} from '@kubernetes/client-node/dist/gen/types/ObjectParamAPI.js';

/** One call as ObservableAPI makes it: request built with the merged configuration, middleware around send. */
async function send<T>(
  configuration: Configuration,
  options: ConfigurationOptions | undefined,
  request: (config: Configuration) => Promise<RequestContext>,
  process: (response: ResponseContext) => Promise<HttpInfo<T>>,
): Promise<T> {
  const config = mergeConfiguration(configuration, options);
  let context = await request(config);
  for (const m of config.middleware) context = await m.pre(context).toPromise();
  let response = await config.httpApi.send(context).toPromise();
  for (const m of [...config.middleware].reverse()) response = await m.post(response).toPromise();
  return (await process(response)).data;
}

/** The CoreV1 methods pod-doctor calls, with the library's parameter objects (ObjectCoreV1Api). */
export class CoreV1Api {
  private readonly requests: CoreV1ApiRequestFactory;
  private readonly responses = new CoreV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new CoreV1ApiRequestFactory(configuration);
  }

  listPodForAllNamespaces(p: ListAllPods = {}, options?: ConfigurationOptions) {
    const args = [p.allowWatchBookmarks, p._continue, p.fieldSelector, p.labelSelector, p.limit, p.pretty] as const;
    const rest = [p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds, p.watch] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.listPodForAllNamespaces(...args, ...rest, c),
      (r) => this.responses.listPodForAllNamespacesWithHttpInfo(r),
    );
  }

  listNamespacedEvent(p: ListEvents, options?: ConfigurationOptions) {
    const args = [p.namespace, p.pretty, p.allowWatchBookmarks, p._continue, p.fieldSelector, p.labelSelector] as const;
    const rest = [p.limit, p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.listNamespacedEvent(...args, ...rest, p.watch, c),
      (r) => this.responses.listNamespacedEventWithHttpInfo(r),
    );
  }

  listNamespacedPod(p: ListPods, options?: ConfigurationOptions) {
    const args = [p.namespace, p.pretty, p.allowWatchBookmarks, p._continue, p.fieldSelector, p.labelSelector] as const;
    const rest = [p.limit, p.resourceVersion, p.resourceVersionMatch, p.sendInitialEvents, p.timeoutSeconds] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.listNamespacedPod(...args, ...rest, p.watch, c),
      (r) => this.responses.listNamespacedPodWithHttpInfo(r),
    );
  }

  readNamespacedPod(p: ReadPod, options?: ConfigurationOptions) {
    return send(
      this.configuration,
      options,
      (c) => this.requests.readNamespacedPod(p.name, p.namespace, p.pretty, c),
      (r) => this.responses.readNamespacedPodWithHttpInfo(r),
    );
  }

  readNode(p: ReadNode, options?: ConfigurationOptions) {
    return send(
      this.configuration,
      options,
      (c) => this.requests.readNode(p.name, p.pretty, c),
      (r) => this.responses.readNodeWithHttpInfo(r),
    );
  }

  patchNode(p: PatchNode, options?: ConfigurationOptions) {
    return send(
      this.configuration,
      options,
      (c) => this.requests.patchNode(p.name, p.body, p.pretty, p.dryRun, p.fieldManager, p.fieldValidation, p.force, c),
      (r) => this.responses.patchNodeWithHttpInfo(r),
    );
  }

  deleteNamespacedPod(p: DeletePod, options?: ConfigurationOptions) {
    const args = [p.name, p.namespace, p.pretty, p.dryRun, p.gracePeriodSeconds] as const;
    const rest = [p.ignoreStoreReadErrorWithClusterBreakingPotential, p.orphanDependents, p.propagationPolicy] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.deleteNamespacedPod(...args, ...rest, p.body, c),
      (r) => this.responses.deleteNamespacedPodWithHttpInfo(r),
    );
  }

  createNamespacedPodEviction(p: CreateEviction, options?: ConfigurationOptions) {
    const args = [p.name, p.namespace, p.body, p.dryRun, p.fieldManager, p.fieldValidation, p.pretty] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.createNamespacedPodEviction(...args, c),
      (r) => this.responses.createNamespacedPodEvictionWithHttpInfo(r),
    );
  }

  readNamespacedConfigMap(p: ReadConfigMap, options?: ConfigurationOptions) {
    return send(
      this.configuration,
      options,
      (c) => this.requests.readNamespacedConfigMap(p.name, p.namespace, p.pretty, c),
      (r) => this.responses.readNamespacedConfigMapWithHttpInfo(r),
    );
  }

  patchNamespacedConfigMap(p: PatchConfigMap, options?: ConfigurationOptions) {
    const args = [p.name, p.namespace, p.body, p.pretty, p.dryRun, p.fieldManager, p.fieldValidation, p.force] as const;
    return send(
      this.configuration,
      options,
      (c) => this.requests.patchNamespacedConfigMap(...args, c),
      (r) => this.responses.patchNamespacedConfigMapWithHttpInfo(r),
    );
  }
}

/** The AppsV1 method pod-doctor calls (ObjectAppsV1Api's parameter object). */
export class AppsV1Api {
  private readonly requests: AppsV1ApiRequestFactory;
  private readonly responses = new AppsV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new AppsV1ApiRequestFactory(configuration);
  }

  readNamespacedDaemonSet(p: ReadDaemonSet, options?: ConfigurationOptions) {
    return send(
      this.configuration,
      options,
      (c) => this.requests.readNamespacedDaemonSet(p.name, p.namespace, p.pretty, c),
      (r) => this.responses.readNamespacedDaemonSetWithHttpInfo(r),
    );
  }
}
