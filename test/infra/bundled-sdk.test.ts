import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILE, BUNDLE_OPTIONS, bundleHandler } from '../../lib/constructs/bundling.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { runNode } from '../support/bundles.js';

/**
 * The bundler's sdk-schema-keys plugin (lib/constructs/esbuild-run.ts) rewrites the AWS SDK's schema
 * modules so unused shapes can be dropped. The SDK must work exactly as before: the clients and
 * commands pod-doctor's functions use, bundled with the plugin and without it (esbuild alone), send
 * the same requests to a local endpoint and read its answers and errors alike.
 */
interface Seen {
  method?: string;
  url?: string;
  target?: string | string[];
  contentType?: string | string[];
  body: string;
}
const seen: Seen[] = [];

function answer(req: IncomingMessage, body: string, res: ServerResponse) {
  const target = String(req.headers['x-amz-target'] ?? '');
  const json = (status: number, doc: unknown, type = 'application/x-amz-json-1.0') => {
    res.writeHead(status, { 'content-type': type });
    res.end(JSON.stringify(doc));
  };
  if (req.url?.startsWith('/evidence/')) {
    res.writeHead(200, { etag: '"9b2cf535f27731c974343645a3985328"' });
    return void res.end();
  }
  if (req.url?.startsWith('/missing/')) {
    res.writeHead(404, { 'content-type': 'application/xml' });
    return void res.end(
      '<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>',
    );
  }
  if (target.endsWith('StartExecution'))
    return body.includes('"exists"')
      ? json(400, { __type: 'com.amazonaws.states#ExecutionAlreadyExists', message: 'Execution Already Exists' })
      : json(200, {
          executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:sm:inc-1',
          startDate: 1764496800.5,
        });
  if (req.url === '/clusters/prod')
    return json(
      200,
      { cluster: { name: 'prod', status: 'ACTIVE', createdAt: 1764496800, endpoint: 'https://x' } },
      'application/json',
    );
  if (req.url === '/clusters/gone')
    return json(404, { message: 'No cluster found for name: gone' }, 'application/json');
  if (target.endsWith('PutItem')) return json(200, {});
  if (target.endsWith('GetItem')) return json(200, { Item: { pk: { S: 'a' }, n: { N: '1' }, l: { L: [{ S: 'x' }] } } });
  json(500, { message: `unexpected ${req.method} ${req.url} ${target}` });
}

const server: Server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    const h = req.headers;
    seen.push({ method: req.method, url: req.url, target: h['x-amz-target'], contentType: h['content-type'], body });
    answer(req, body, res);
  });
});
const dirs = {
  plugin: mkdtempSync(join(tmpdir(), 'pod-doctor-sdk-')),
  plain: mkdtempSync(join(tmpdir(), 'pod-doctor-sdk-')),
};
let endpoint = '';

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probe = join(PROJECT_ROOT, 'test/support/sdk-probe.ts');
  bundleHandler(probe, dirs.plugin);
  buildSync({
    ...BUNDLE_OPTIONS,
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    entryPoints: [probe],
    outfile: join(dirs.plain, BUNDLE_FILE),
  });
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
});

async function run(dir: string): Promise<{ results: Record<string, unknown>; requests: Seen[] }> {
  seen.length = 0;
  const env = {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL: endpoint,
  };
  const results = JSON.parse((await runNode([join(dir, BUNDLE_FILE)], dir, env)).stdout);
  return { results, requests: [...seen] };
}

describe('the AWS SDK bundled with the sdk-schema-keys plugin', () => {
  it('sends the same requests and reads the same answers and errors as without it', async () => {
    const plugin = await run(dirs.plugin);
    const plain = await run(dirs.plain);
    expect(plugin).toEqual(plain);
    expect(plugin.results).toMatchObject({
      s3: { status: 200, ETag: '"9b2cf535f27731c974343645a3985328"' },
      s3Missing: { error: 'NoSuchBucket', status: 404, fault: 'client' },
      sfn: { status: 200, executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:sm:inc-1' },
      sfnExists: { error: 'ExecutionAlreadyExists', status: 400 },
      eks: { status: 200, cluster: { name: 'prod', status: 'ACTIVE' } },
      eksMissing: { status: 404 },
      ddbGet: { status: 200, Item: { pk: 'a', n: 1, l: ['x'] } },
    });
    expect(plugin.requests.map((r) => `${r.method} ${r.url}`)).toContain(
      'PUT /evidence/rejects/2026/a%20b.json?x-id=PutObject',
    );
  });

  it('leaves out the shapes of the operations nobody calls', () => {
    const size = (dir: string) => statSync(join(dir, BUNDLE_FILE)).size;
    // S3 alone had 484 shapes in a bundle that puts objects (67 KB), EKS 41 KB.
    expect(size(dirs.plain) - size(dirs.plugin)).toBeGreaterThan(90_000);
  });
});
