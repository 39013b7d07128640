import { Agent, type AgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
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

/** Reads one page of a list (`cont`: the previous page's continue token). */
export type PageReader<T> = (
  kc: ClusterConnection,
  cont?: string,
) => Promise<{ items: T[]; metadata?: { _continue?: string; resourceVersion?: string } }>;

/** Every page of a list, read at one resourceVersion. */
export interface PagedList<T> {
  readonly items: T[];
  readonly resourceVersion?: string;
  /** False when the page bound (`maxPages`) ended the read before the last page. */
  readonly complete: boolean;
}

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

/** How long a connection and a request to an API server may take. */
export interface ConnectionTimeouts {
  /** TCP connect and TLS handshake. @default 3 s */
  readonly connectTimeoutMs?: number;
  /** One request, connect to last byte (watches excepted: they stream). @default 10 s */
  readonly requestTimeoutMs?: number;
}

/** The API server did not answer in time: a private endpoint out of reach, a blocked route, a stalled server. */
export class KubernetesUnreachableError extends Error {
  override readonly name = 'KubernetesUnreachableError';
}

/** Ends a connection whose TLS handshake has not completed within `ms` (the socket is destroyed with the reason). */
class TimedAgent extends Agent {
  constructor(
    options: AgentOptions,
    private readonly connectTimeoutMs: number,
  ) {
    super(options);
  }

  override createConnection(...args: Parameters<Agent['createConnection']>): Duplex {
    const socket = super.createConnection(...args) as TLSSocket;
    const timer = setTimeout(
      () => socket.destroy(new KubernetesUnreachableError(`no TLS connection within ${this.connectTimeoutMs} ms`)),
      this.connectTimeoutMs,
    );
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }
}

/** True for the failures a timeout of {@link ClusterConnection} produces (abort, destroyed connection). */
export function isTimeout(e: unknown): boolean {
  const seen = new Set<unknown>();
  for (
    let x = e as { name?: string; type?: string; cause?: unknown } | undefined;
    x && !seen.has(x);
    x = x.cause as never
  ) {
    seen.add(x);
    if (x.name === 'KubernetesUnreachableError' || x.name === 'AbortError' || x.name === 'TimeoutError') return true;
    if (x.type === 'aborted' || x.type === 'request-timeout') return true;
  }
  return /no TLS connection within|aborted/i.test(String((e as Error)?.message ?? ''));
}

/**
 * The library's clients for one cluster, authenticated as KubeConfig does for a user with a token
 * and a cluster with `caData` (config.js `makeApiClient`, `applySecurityAuthentication`,
 * `applyToFetchOptions`): `Authorization: Bearer`, an HTTPS agent trusting only the cluster CA, with
 * a connect timeout; every request but a watch with a request timeout.
 */
export class ClusterConnection {
  private readonly agent: Agent;
  private readonly requestTimeoutMs: number;

  constructor(
    private readonly credentials: ClusterCredentials,
    timeouts: ConnectionTimeouts = {},
  ) {
    this.agent = new TimedAgent({ ca: Buffer.from(credentials.caData, 'base64') }, timeouts.connectTimeoutMs ?? 3_000);
    this.requestTimeoutMs = timeouts.requestTimeoutMs ?? 10_000;
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
        context.setSignal(AbortSignal.timeout(this.requestTimeoutMs));
      },
    };
  }
}
