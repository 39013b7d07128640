import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';

/**
 * EKS bearer tokens, as `aws eks get-token` and aws-iam-authenticator build them: a presigned STS
 * `GetCallerIdentity` URL whose signed headers include `x-k8s-aws-id: <cluster name>`, encoded as
 * `k8s-aws-v1.` + base64url (no padding). The API server accepts a token for 15 minutes after its
 * X-Amz-Date; the presigned URL itself says `X-Amz-Expires=60`.
 * Structure: https://github.com/kubernetes-sigs/aws-iam-authenticator#api-authorization-from-outside-a-cluster
 */
export const TOKEN_PREFIX = 'k8s-aws-v1.';
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** Seconds the presigned URL says it is valid (the authenticator's own value). */
export const PRESIGN_EXPIRES_SECONDS = 60;
/** The API server accepts a token this long after it was signed. */
export const TOKEN_LIFETIME_MS = 15 * 60_000;
/** A cached token is reused only while it is younger than this (well below the lifetime). */
export const TOKEN_REUSE_MS = 10 * 60_000;

export interface TokenRequest {
  readonly clusterName: string;
  readonly region: string;
  /** DNS suffix of the partition: `amazonaws.com`, `amazonaws.com.cn`. @default 'amazonaws.com' */
  readonly dnsSuffix?: string;
}

export interface EksToken {
  readonly token: string;
  /** When the token was signed. */
  readonly signedAt: Date;
  /** When the API server stops accepting it. */
  readonly expiresAt: Date;
}

/** node:crypto behind the smithy Checksum interface (SHA-256, or HMAC-SHA-256 with a secret). */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(this.secret));
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

function toBuffer(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Builds one token, signed at `now`. Pure apart from the credentials provider. */
export async function buildEksToken(
  request: TokenRequest,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  now: Date,
): Promise<EksToken> {
  const hostname = `sts.${request.region}.${request.dnsSuffix ?? 'amazonaws.com'}`;
  const signer = new SignatureV4({ credentials, region: request.region, service: 'sts', sha256: NodeSha256 });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: request.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: now },
  );
  const query = new URLSearchParams(signed.query as Record<string, string>).toString();
  const url = `https://${hostname}/?${query}`;
  return {
    token: TOKEN_PREFIX + base64url(url).replace(/=+$/, ''),
    signedAt: now,
    expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS),
  };
}

/**
 * Tokens per cluster, reused while younger than {@link TOKEN_REUSE_MS} (a warm Lambda keeps its
 * cache across invocations); `invalidate` after a 401 so the next call signs afresh.
 */
export class EksTokenCache {
  private readonly tokens = new Map<string, EksToken>();

  constructor(
    private readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async get(request: TokenRequest): Promise<string> {
    const key = `${request.region}/${request.clusterName}`;
    const now = this.clock();
    const cached = this.tokens.get(key);
    if (cached && now.getTime() - cached.signedAt.getTime() < TOKEN_REUSE_MS) return cached.token;
    const fresh = await buildEksToken(request, this.credentials, now);
    this.tokens.set(key, fresh);
    return fresh.token;
  }

  invalidate(request: TokenRequest): void {
    this.tokens.delete(`${request.region}/${request.clusterName}`);
  }
}
