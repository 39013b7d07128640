import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterApi, KubernetesUnreachableError } from '../../lambdas/aws/readers/kubernetes/cluster-api.js';
import { selfSignedCertificate } from '../../local/kube-api-helpers.js';

/**
 * A cluster endpoint out of reach (a private endpoint seen from outside its VPC, a route that drops
 * packets) or a stalled API server ends the call within the connect or request timeout, as a named
 * error that says what to check, instead of holding the function until Lambda's own timeout.
 */
const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  server.on('connection', (s: Socket) => sockets.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

const { key, cert } = selfSignedCertificate();
const tokens = { get: async () => 'k8s-aws-v1.token', invalidate: () => undefined };
const api = (port: number) =>
  new ClusterApi(
    {
      name: 'prod-eu',
      region: 'eu-west-1',
      endpoint: `https://127.0.0.1:${port}`,
      certificateAuthorityData: Buffer.from(cert).toString('base64'),
    },
    tokens,
    { connectTimeoutMs: 300, requestTimeoutMs: 600, maxAttempts: 1 },
  );

describe('Kubernetes client timeouts', () => {
  it('a server that accepts TCP but never completes TLS: KubernetesUnreachableError after the connect timeout', async () => {
    const port = await listen(createServer(() => undefined));
    const started = Date.now();
    const error = await api(port)
      .node('ip-10-0-1-1.eu-west-1.compute.internal')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesUnreachableError);
    expect((error as Error).message).toMatch(/cluster prod-eu .* did not answer in time.*private endpoint/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a server that completes TLS but never answers: KubernetesUnreachableError after the request timeout', async () => {
    const port = await listen(createHttpsServer({ key, cert }, () => undefined));
    const started = Date.now();
    const error = await api(port)
      .node('ip-10-0-1-1.eu-west-1.compute.internal')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubernetesUnreachableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
