import { Agent } from 'node:https';
// The pieces of @kubernetes/client-node pod-doctor uses, imported from their own modules. The
// package's index re-exports everything (exec, attach, port-forward and cp pull in ws and tar-fs),
// and its KubeConfig imports every auth provider (OIDC, Azure, GCP, exec) with js-yaml, jsonpath-plus
// and proxy agents; together ~400 KB of bundle and ~40 ms of cold start a function with a bearer
// token and a CA never runs (issue 15, `npm run bench:init`). The requests (generated-api.ts: the
// operations pod-doctor calls, built as the generated API classes build them), the ObjectSerializer
// with every model, the HTTP library and Watch are the library's own.
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { Configuration } from '@kubernetes/client-node/dist/gen/configuration.js';
import { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
import type { RequestContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';

export { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
export { setHeaderOptions } from '@kubernetes/client-node/dist/middleware.js';
export { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
export { AppsV1Api, CoreV1Api } from './generated-api.js';

/** An API server, its CA and a bearer token: all pod-doctor's access entry needs. */
export interface ClusterCredentials {
  /** A name for the cluster (Watch reports it). */
  readonly name: string;
  /** `https://…` */
  readonly server: string;
  /** base64 PEM of the cluster CA (EKS `certificateAuthority.data`). */
  readonly caData: string;
  readonly token: string;
}

/**
 * The library's clients for one cluster, authenticated as KubeConfig does for a user with a token
 * and a cluster with `caData` (config.js `makeApiClient`, `applySecurityAuthentication`,
 * `applyToFetchOptions`): `Authorization: Bearer`, an HTTPS agent trusting only the cluster CA.
 */
export class ClusterConnection {
  private readonly agent: Agent;

  constructor(private readonly credentials: ClusterCredentials) {
    this.agent = new Agent({ ca: Buffer.from(credentials.caData, 'base64') });
  }

  /** A generated API client (CoreV1Api, AppsV1Api …), as `KubeConfig.makeApiClient` builds it. */
  makeApiClient<T>(apiClientType: new (config: Configuration) => T): T {
    return new apiClientType(
      createConfiguration({
        baseServer: new ServerConfiguration(this.credentials.server, {}),
        authMethods: { default: this.authentication() },
      }),
    );
  }

  /** The library's Watch on this cluster. */
  watch(): Watch {
    // Watch reads exactly two members of its KubeConfig: getCurrentCluster().server and
    // applyToFetchOptions() (watch.js); this object provides both, with the agent and header above.
    const config = {
      getCurrentCluster: () => ({ name: this.credentials.name, server: this.credentials.server, skipTLSVerify: false }),
      applyToFetchOptions: async () => ({ agent: this.agent, headers: this.headers() }),
    };
    return new Watch(config as unknown as KubeConfig);
  }

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.credentials.token}` };
  }

  private authentication() {
    return {
      getName: () => 'pod-doctor',
      applySecurityAuthentication: (context: RequestContext) => {
        for (const [k, v] of Object.entries(this.headers())) context.setHeaderParam(k, v);
        context.setAgent(this.agent);
      },
    };
  }
}
