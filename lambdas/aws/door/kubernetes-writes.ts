import type { V1ConfigMap, V1Eviction, V1Node, V1Pod } from '@kubernetes/client-node';
import type { Configuration, ConfigurationOptions } from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import type {
  CoreV1ApiCreateNamespacedPodEvictionRequest as CreateEviction,
  CoreV1ApiDeleteNamespacedPodRequest as DeletePod,
  CoreV1ApiPatchNamespacedConfigMapRequest as PatchConfigMap,
  CoreV1ApiPatchNodeRequest as PatchNode,
} from '@kubernetes/client-node/dist/gen/types/ObjectParamAPI.js';
import { type Operation, POD, PRETTY, type Query, send, VPC_CNI } from '../readers/kubernetes/generated-api.js';

const WRITE: readonly Query[] = [
  ['dryRun', 'string'],
  ['fieldManager', 'string'],
  ['fieldValidation', 'string'],
];
const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
];

/** A PATCH operation of CoreV1 (gen/apis/CoreV1Api.js: its query parameters and media types). */
const patch = (name: string, path: string, returns: string, required: readonly string[]): Operation => ({
  api: 'CoreV1Api',
  name,
  method: HttpMethod.PATCH,
  path,
  required,
  query: [PRETTY, ...WRITE, ['force', 'boolean']],
  body: { type: 'any', mediaTypes: PATCH_MEDIA_TYPES },
  returns,
});

/**
 * The Kubernetes writes pod-doctor makes, defined only here (the reads are in
 * ../kubernetes/generated-api.ts): patch a node (cordon), delete a pod (the aws-node restart), evict
 * a pod, patch ConfigMap amazon-vpc-cni. No module outside the door can send them
 * (test/infra/door-isolation.test.ts), and only the door's access entry maps to the Kubernetes group
 * the RBAC manifest lets write.
 */
export const WRITE_OPERATIONS = {
  patchNode: patch('patchNode', '/api/v1/nodes/{name}', 'V1Node', ['name', 'body']),
  deleteNamespacedPod: {
    api: 'CoreV1Api',
    name: 'deleteNamespacedPod',
    method: HttpMethod.DELETE,
    path: POD,
    required: ['name', 'namespace'],
    query: [
      PRETTY,
      ['dryRun', 'string'],
      ['gracePeriodSeconds', 'number'],
      ['ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean'],
      ['orphanDependents', 'boolean'],
      ['propagationPolicy', 'string'],
    ],
    body: { type: 'V1DeleteOptions', mediaTypes: [] },
    returns: 'V1Pod',
  },
  createNamespacedPodEviction: {
    api: 'CoreV1Api',
    name: 'createNamespacedPodEviction',
    method: HttpMethod.POST,
    path: `${POD}/eviction`,
    required: ['name', 'namespace', 'body'],
    query: [...WRITE, PRETTY],
    body: { type: 'V1Eviction', mediaTypes: [] },
    returns: 'V1Eviction',
  },
  patchNamespacedConfigMap: patch('patchNamespacedConfigMap', VPC_CNI, 'V1ConfigMap', ['name', 'namespace', 'body']),
} as const satisfies Record<string, Operation>;

/** The CoreV1 writes, with the library's parameter objects (ObjectCoreV1Api). */
export class CoreV1WriteApi {
  constructor(private readonly configuration: Configuration) {}

  patchNode(p: PatchNode, options?: ConfigurationOptions) {
    return send<V1Node>(WRITE_OPERATIONS.patchNode, p, this.configuration, options);
  }
  deleteNamespacedPod(p: DeletePod, options?: ConfigurationOptions) {
    return send<V1Pod>(WRITE_OPERATIONS.deleteNamespacedPod, p, this.configuration, options);
  }
  createNamespacedPodEviction(p: CreateEviction, options?: ConfigurationOptions) {
    return send<V1Eviction>(WRITE_OPERATIONS.createNamespacedPodEviction, p, this.configuration, options);
  }
  patchNamespacedConfigMap(p: PatchConfigMap, options?: ConfigurationOptions) {
    return send<V1ConfigMap>(WRITE_OPERATIONS.patchNamespacedConfigMap, p, this.configuration, options);
  }
}
