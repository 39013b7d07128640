import { createHash } from 'node:crypto';
import type { WaitOptions } from '../lambdas/aws/door/kubernetes-actions.js';
import {
  handleKubernetesRequest,
  type KubernetesRequest,
  kubernetesRequestSchema,
} from '../lambdas/aws/kubernetes/service.js';
import { ClusterApi } from '../lambdas/aws/readers/kubernetes/cluster-api.js';
import { EksTokenCache } from '../lambdas/aws/readers/kubernetes/token.js';
import type { KubeApiServer } from './kube-api-server.js';
import { type ClusterNetwork, type Placement, reaches } from './network.js';

/** A function the template places in no VPC. */
const outside: Placement = { function: 'a function outside any VPC', subnetIds: [], securityGroupIds: [], ingress: [] };

/**
 * A cluster as the local runtime's functions reach it: the Kubernetes function's code (reads) and
 * the door's client of the API, each signing its bearer token with its own role's credentials, so
 * the API server authorizes each by the groups its access entry maps it to.
 */
export interface LocalKubernetes {
  /**
   * The Kubernetes function's code, signing as `role`, from where the function runs (`placement`,
   * read from the template; absent: outside any VPC).
   */
  read(role: string, placement?: Placement): (request: unknown) => Promise<unknown>;
  /** The cluster's API signing as `role` (the door's writes go through it), from `placement`. */
  api(role: string, placement?: Placement): Promise<ClusterApi>;
  /** Why functions could not reach the API server (one line per refused connection setup). */
  readonly refused: string[];
  /** Who may call the API server with which groups: the template's access entries (role → groups). */
  bind(entries: ReadonlyMap<string, readonly string[]>): void;
  /** How long the door waits for aws-node's replacement and a drain's pods (the local controller is fast). */
  readonly wait: WaitOptions;
}

/** The local credentials of a role: an access key of its own, so the API server can tell roles apart. */
export function roleCredentials(role: string) {
  const id = createHash('sha256').update(role).digest('hex').slice(0, 16).toUpperCase();
  return { accessKeyId: `AKID${id}`, secretAccessKey: `local-${id}`, sessionToken: 'local-session' };
}

/**
 * The real Kubernetes function code and the door's API client against a local HTTPS API server
 * (recorded objects, the shipped RBAC as its authorizer). The watch window is compressed to
 * `watchSeconds`, as the local runtime compresses Wait states.
 */
export function localKubernetes(
  server: KubeApiServer,
  endpoint: string,
  watchSeconds = 2,
  network?: { readonly cluster: ClusterNetwork; readonly silent: string },
): LocalKubernetes {
  const refused: string[] = [];
  /** The endpoint as the caller's network leads to it: the API server, or no answer (issue 36). */
  const cluster = async (name: string, placement?: Placement) => {
    const reach = network ? reaches(placement ?? outside, network.cluster) : { reached: true as const };
    if (!reach.reached) refused.push(reach.reason);
    return {
      name,
      region: 'eu-west-1',
      endpoint: reach.reached ? endpoint : (network?.silent ?? endpoint),
      certificateAuthorityData: server.caData,
    };
  };
  const tokens = new Map<string, EksTokenCache>();
  const tokensOf = (role: string) => {
    let t = tokens.get(role);
    if (!t) {
      t = new EksTokenCache(roleCredentials(role));
      tokens.set(role, t);
    }
    return t;
  };
  return {
    refused,
    read: (role, placement) => async (raw) => {
      const request: KubernetesRequest = kubernetesRequestSchema.parse(raw);
      const compressed =
        request.action === 'verify' || request.action === 'verify-replacements'
          ? { ...request, windowSeconds: Math.min(request.windowSeconds, watchSeconds) }
          : request;
      return handleKubernetesRequest(compressed, {
        endpoint: (name) => cluster(name, placement),
        tokens: tokensOf(role),
        replacementWatch: { pollMs: 100 },
      });
    },
    api: async (role, placement) => new ClusterApi(await cluster('prod-eu', placement), tokensOf(role)),
    // The local DaemonSet controller replaces aws-node within a second: read often, wait as long as a watch.
    wait: { pollMs: 100, timeoutMs: watchSeconds * 1000 },
    bind(entries) {
      server.identities = new Map(
        [...entries].map(([role, groups]) => [roleCredentials(role).accessKeyId, [...groups]] as const),
      );
    },
  };
}

const noAccessEntry = () =>
  Object.assign(new Error('cluster does not accept pod-doctor’s token (no access entry for its role)'), {
    name: 'KubernetesUnauthorizedError',
  });

/** A cluster pod-doctor cannot reach (no access entry): what every call answers without RBAC. */
export const unreachableCluster: LocalKubernetes = {
  refused: [],
  read: () => async () => {
    throw noAccessEntry();
  },
  api: async () => {
    throw noAccessEntry();
  },
  bind: () => undefined,
  wait: {},
};
