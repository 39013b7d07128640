import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  buildEksToken,
  EksTokenCache,
  PRESIGN_EXPIRES_SECONDS,
  TOKEN_PREFIX,
  TOKEN_REUSE_MS,
} from '../../lambdas/aws/readers/kubernetes/token.js';

const CREDS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SESSION = { ...CREDS, sessionToken: 'IQoJb3JpZ2luX2VjE/session+token=' };
const NOW = new Date('2026-11-30T10:20:30Z');

function decode(token: string): URL {
  expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
  const body = token.slice(TOKEN_PREFIX.length);
  expect(body).toMatch(/^[A-Za-z0-9_-]+$/); // base64url, no padding
  return new URL(Buffer.from(body, 'base64url').toString('utf8'));
}

/** SigV4 query-string signature computed independently of the signer (AWS documented algorithm). */
function expectedSignature(url: URL, clusterName: string, secret: string): string {
  const params = [...url.searchParams.entries()].filter(([k]) => k !== 'X-Amz-Signature');
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = params
    .map(([k, v]) => [enc(k), enc(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers = `host:${url.host}\nx-k8s-aws-id:${clusterName}\n`;
  const canonical = [
    'GET',
    '/',
    query,
    headers,
    'host;x-k8s-aws-id',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = url.searchParams.get('X-Amz-Credential')?.split('/').slice(1).join('/') ?? '';
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const [date, region, service] = scope.split('/');
  let key: Buffer = createHmac('sha256', `AWS4${secret}`)
    .update(date ?? '')
    .digest();
  for (const part of [region ?? '', service ?? '', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('EKS bearer token', () => {
  it('is a presigned STS GetCallerIdentity URL on the regional endpoint with the cluster id header signed', async () => {
    const { token } = await buildEksToken({ clusterName: 'prod-eu', region: 'eu-west-1' }, CREDS, NOW);
    const url = decode(token);
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('Version')).toBe('2011-06-15');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261130/eu-west-1/sts/aws4_request');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261130T102030Z');
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(PRESIGN_EXPIRES_SECONDS));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('carries a signature that verifies for exactly this cluster name', async () => {
    const { token } = await buildEksToken({ clusterName: 'prod-eu', region: 'eu-west-1' }, CREDS, NOW);
    const url = decode(token);
    const signature = url.searchParams.get('X-Amz-Signature');
    expect(signature).toBe(expectedSignature(url, 'prod-eu', CREDS.secretAccessKey));
    expect(signature).not.toBe(expectedSignature(url, 'prod-us', CREDS.secretAccessKey));
  });

  it('includes the session token of temporary (Lambda role) credentials in the signed query', async () => {
    const { token } = await buildEksToken({ clusterName: 'c', region: 'us-east-1' }, SESSION, NOW);
    const url = decode(token);
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(SESSION.sessionToken);
    expect(url.searchParams.get('X-Amz-Signature')).toBe(expectedSignature(url, 'c', SESSION.secretAccessKey));
  });

  it('uses the partition DNS suffix (China regions)', async () => {
    const { token } = await buildEksToken(
      { clusterName: 'c', region: 'cn-north-1', dnsSuffix: 'amazonaws.com.cn' },
      CREDS,
      NOW,
    );
    expect(decode(token).host).toBe('sts.cn-north-1.amazonaws.com.cn');
  });

  it('says when the API server stops accepting it: 15 minutes after signing', async () => {
    const t = await buildEksToken({ clusterName: 'c', region: 'us-east-1' }, CREDS, NOW);
    expect(t.expiresAt.getTime() - NOW.getTime()).toBe(15 * 60_000);
  });
});

describe('EKS token cache', () => {
  it('reuses a token below the reuse age, signs afresh after it and after invalidate', async () => {
    let now = NOW.getTime();
    let signed = 0;
    const cache = new EksTokenCache(
      async () => {
        signed += 1;
        return CREDS;
      },
      () => new Date(now),
    );
    const req = { clusterName: 'c', region: 'us-east-1' };
    const first = await cache.get(req);
    now += TOKEN_REUSE_MS - 1;
    expect(await cache.get(req)).toBe(first);
    now += 2;
    const second = await cache.get(req);
    expect(second).not.toBe(first);
    cache.invalidate(req);
    expect(await cache.get(req)).toBe(second); // signed again at the same instant: the same signature
    expect(signed).toBe(3);
  });

  it('keeps one token per cluster and region', async () => {
    const cache = new EksTokenCache(CREDS, () => NOW);
    const a = await cache.get({ clusterName: 'a', region: 'us-east-1' });
    const b = await cache.get({ clusterName: 'b', region: 'us-east-1' });
    expect(a).not.toBe(b);
  });
});
