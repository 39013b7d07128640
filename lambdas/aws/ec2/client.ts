import { fromEnv } from '@aws-sdk/credential-provider-env';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { Ec2Client, Ec2Command } from './commands.js';
import { decodeError, decodeResponse, queryBody } from './wire.js';

export * from './commands.js';

/**
 * An EC2 API error as the SDK names it: `name` is EC2's error `Code` (UnauthorizedOperation,
 * InvalidPermission.NotFound, RequestLimitExceeded …), with the SDK's `$fault` and `$metadata`.
 */
export class Ec2ServiceError extends Error {
  override readonly name: string;
  readonly $fault: 'client' | 'server';
  readonly $metadata: Ec2Metadata;

  constructor(code: string, message: string, metadata: Ec2Metadata) {
    super(message);
    this.name = code;
    this.$fault = (metadata.httpStatusCode ?? 0) >= 500 ? 'server' : 'client';
    this.$metadata = metadata;
  }
}

export interface Ec2Metadata {
  readonly httpStatusCode?: number;
  readonly requestId?: string;
  readonly attempts: number;
  readonly totalRetryDelay: number;
}

/** Error codes the SDK's standard retry strategy retries as throttling (its list, EC2's among them). */
const THROTTLING = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'BandwidthLimitExceeded',
  'LimitExceededException',
  'RequestThrottled',
  'SlowDown',
  'PriorRequestNotComplete',
  'EC2ThrottledException',
]);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);

export interface Ec2QueryClientOptions {
  /** @default the `AWS_REGION` (else `AWS_DEFAULT_REGION`) environment variable */
  readonly region?: string | (() => Promise<string>);
  /** @default the environment variables Lambda sets (`fromEnv`) */
  readonly credentials?: AwsCredentialIdentityProvider;
  /** @default `AWS_ENDPOINT_URL_EC2`, else the regional endpoint `https://ec2.<region>.<dns suffix>` */
  readonly endpoint?: string;
  /** Attempts per call, throttling and transient errors retried with backoff. @default 6 */
  readonly maxAttempts?: number;
  /** The HTTP transport (tests inject one). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /** Waits between attempts (tests inject one). @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

const dnsSuffix = (region: string) => (region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com');

/**
 * A small EC2 Query API client: SigV4-signed (@smithy/signature-v4) form POSTs, XML answers decoded
 * into the SDK's output shapes (./wire.ts), EC2 error codes as named errors, retries on throttling
 * and transient errors with the SDK's backoff (exponential, full jitter). It loads ~30 KB where
 * @aws-sdk/client-ec2 bundles ~550 KB of schemas for the same calls.
 */
export class Ec2QueryClient implements Ec2Client {
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxAttempts: number;
  private signer?: { region: string; endpoint: URL; sign: SignatureV4 };

  constructor(private readonly options: Ec2QueryClientOptions = {}) {
    this.fetch = options.fetch ?? ((...a) => globalThis.fetch(...a));
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.maxAttempts = options.maxAttempts ?? 6;
  }

  async send<I extends object, O extends object>(command: Ec2Command<I, O>): Promise<O> {
    const body = queryBody(command.action, command.input);
    let totalRetryDelay = 0;
    for (let attempt = 1; ; attempt++) {
      const r = await this.attempt(body).catch((e: Error) => ({ networkError: e }));
      if ('ok' in r && r.ok) {
        const { output, requestId } = decodeResponse(r.text);
        const $metadata = { httpStatusCode: r.status, requestId, attempts: attempt, totalRetryDelay };
        return { ...output, $metadata } as O;
      }
      const error = 'networkError' in r ? r.networkError : this.error(r, attempt, totalRetryDelay);
      const throttled = THROTTLING.has(error.name);
      const retryable = throttled || 'networkError' in r || TRANSIENT_STATUS.has(r.status);
      if (!retryable || attempt >= this.maxAttempts) throw error;
      const delay = Math.floor(Math.random() * Math.min(20_000, 2 ** (attempt - 1) * (throttled ? 500 : 100)));
      totalRetryDelay += delay;
      await this.sleep(delay);
    }
  }

  private error(r: { status: number; text: string }, attempts: number, totalRetryDelay: number): Ec2ServiceError {
    const e = decodeError(r.text);
    return new Ec2ServiceError(e.code ?? `Http${r.status}`, e.message ?? `EC2 answered HTTP ${r.status}`, {
      httpStatusCode: r.status,
      requestId: e.requestId,
      attempts,
      totalRetryDelay,
    });
  }

  private async attempt(body: string): Promise<{ ok: boolean; status: number; text: string }> {
    const { endpoint, sign } = await this.resolved();
    const signed = await sign.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port ? Number(endpoint.port) : undefined,
      path: endpoint.pathname,
      query: {},
      headers: { host: endpoint.host, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const { host: _host, ...headers } = signed.headers;
    const res = await this.fetch(endpoint, { method: 'POST', headers, body });
    return { ok: res.ok, status: res.status, text: await res.text() };
  }

  private async resolved(): Promise<{ region: string; endpoint: URL; sign: SignatureV4 }> {
    if (this.signer) return this.signer;
    const o = this.options;
    const region =
      typeof o.region === 'function'
        ? await o.region()
        : (o.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? '');
    if (!region) throw new Error('EC2 client: no region (set AWS_REGION)');
    const endpoint = new URL(
      o.endpoint ?? process.env.AWS_ENDPOINT_URL_EC2 ?? `https://ec2.${region}.${dnsSuffix(region)}`,
    );
    const sign = new SignatureV4({
      service: 'ec2',
      region,
      credentials: o.credentials ?? fromEnv(),
      sha256: Hash.bind(null, 'sha256'),
    });
    this.signer = { region, endpoint, sign };
    return this.signer;
  }
}
