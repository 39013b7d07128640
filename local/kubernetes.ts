import {
  handleKubernetesRequest,
  type KubernetesRequest,
  kubernetesRequestSchema,
} from '../lambdas/aws/kubernetes/service.js';
import { EksTokenCache } from '../lambdas/aws/kubernetes/token.js';
import type { KubeApiServer } from './kube-api-server.js';

/** The workflow's Kubernetes function as the local runtime runs it. */
export type LocalKubernetes = (request: unknown) => Promise<unknown>;

const CREDENTIALS = { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret', sessionToken: 'local-session' };

/**
 * The real Kubernetes function code against a local HTTPS API server (recorded objects, the
 * shipped RBAC as its authorizer). The watch window is compressed to `watchSeconds`, as the
 * local runtime compresses Wait states.
 */
export function localKubernetes(server: KubeApiServer, endpoint: string, watchSeconds = 2): LocalKubernetes {
  const tokens = new EksTokenCache(CREDENTIALS);
  return async (raw) => {
    const request: KubernetesRequest = kubernetesRequestSchema.parse(raw);
    const compressed =
      request.action === 'verify' || request.action === 'verify-replacements'
        ? { ...request, windowSeconds: Math.min(request.windowSeconds, watchSeconds) }
        : request;
    return handleKubernetesRequest(compressed, {
      endpoint: async (name) => ({ name, region: 'eu-west-1', endpoint, certificateAuthorityData: server.caData }),
      tokens,
      // The local DaemonSet controller replaces aws-node within a second: read often, wait as long as a watch.
      wait: { pollMs: 100, timeoutMs: watchSeconds * 1000 },
      replacementWatch: { pollMs: 100 },
    });
  };
}

/** A cluster pod-doctor cannot reach (no access entry): what the function answers without RBAC. */
export const unreachableCluster: LocalKubernetes = async () => {
  throw Object.assign(new Error('cluster does not accept pod-doctor’s token (no access entry for its role)'), {
    name: 'KubernetesUnauthorizedError',
  });
};
