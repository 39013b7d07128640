import {
  AppsV1ApiRequestFactory,
  AppsV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/AppsV1Api.js';
import {
  CoreV1ApiRequestFactory,
  CoreV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import {
  EventsV1ApiRequestFactory,
  EventsV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/EventsV1Api.js';
import { type Configuration, createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
import { type RequestContext, ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
import { describe, expect, it } from 'vitest';
import { EVENT_OPERATIONS } from '../../lambdas/aws/door/events-api.js';
import {
  buildRequest,
  OPERATIONS,
  type Operation,
  readResponse,
} from '../../lambdas/aws/readers/kubernetes/generated-api.js';

/**
 * pod-doctor sends the twelve Kubernetes operations it calls from descriptions (generated-api.ts)
 * instead of @kubernetes/client-node's generated classes (485 KB a bundle). Each request and each
 * answer must be exactly what the library's generated request factory and response processor make
 * of them: the library's own code is the oracle here, method by method.
 */
const config: Configuration = createConfiguration({
  baseServer: new ServerConfiguration('https://ABCD.gr7.us-east-2.eks.amazonaws.com', {}),
  authMethods: {
    default: {
      getName: () => 'test',
      applySecurityAuthentication: (c: RequestContext) => c.setHeaderParam('Authorization', 'Bearer t0ken'),
    },
  },
});

type Generated = Record<string, (...args: unknown[]) => Promise<unknown>>;
const factories: Record<Operation['api'], Generated> = {
  CoreV1Api: new CoreV1ApiRequestFactory(config) as unknown as Generated,
  AppsV1Api: new AppsV1ApiRequestFactory(config) as unknown as Generated,
  EventsV1Api: new EventsV1ApiRequestFactory(config) as unknown as Generated,
};
const processors: Record<Operation['api'], Generated> = {
  CoreV1Api: new CoreV1ApiResponseProcessor() as unknown as Generated,
  AppsV1Api: new AppsV1ApiResponseProcessor() as unknown as Generated,
  EventsV1Api: new EventsV1ApiResponseProcessor() as unknown as Generated,
};

/** The generated method's parameter names, in order (its source: `async name(a, b, _options) {`). */
function parameterNames(fn: (...args: unknown[]) => unknown): string[] {
  const names = /^\s*async\s+\w+\(([^)]*)\)/.exec(fn.toString())?.[1];
  if (names === undefined) throw new Error(`cannot read the parameters of ${fn.name}`);
  return names.split(',').map((s) => s.trim());
}

/** The library's request for `params` (its positional arguments read from the object, as ObjectParamAPI does). */
function generatedRequest(op: Operation, params: Record<string, unknown>): Promise<RequestContext> {
  const fn = factories[op.api][op.name];
  const args = parameterNames(fn).map((n) => (n === '_options' ? config : params[n]));
  return fn.apply(factories[op.api], args) as Promise<RequestContext>;
}

function snapshot(c: RequestContext) {
  return { url: c.getUrl(), method: c.getHttpMethod(), headers: c.getHeaders(), body: c.getBody() };
}

/** A value of the right type for every parameter of the generated method, each one different. */
function everyParameter(op: Operation): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  for (const [i, n] of parameterNames(factories[op.api][op.name]).entries()) {
    if (n === '_options') continue;
    const query = op.query.find(([name, , key = name]) => key === n);
    p[n] =
      n === 'body'
        ? { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a b/c' }, spec: { unschedulable: null } }
        : query?.[1] === 'boolean'
          ? i % 2 === 0
          : query?.[1] === 'number'
            ? 10 + i
            : `v${i} a/b?c&d=é`;
  }
  return { ...p, name: 'pod-1.x', namespace: 'kube-system' };
}

const ops = [...Object.values(OPERATIONS), ...Object.values(EVENT_OPERATIONS)] as Operation[];

describe('Kubernetes requests: generated-api.ts against the library’s generated request factories', () => {
  it.each(ops.map((op) => [op.name, op] as const))('%s with every parameter set', async (_, op) => {
    const p = everyParameter(op);
    // Every parameter the generated method takes is one this description knows.
    const known = new Set(['name', 'namespace', 'body', ...op.query.map(([name, , key = name]) => key)]);
    expect(Object.keys(p).filter((k) => !known.has(k))).toEqual([]);
    expect(snapshot(await buildRequest(op, p, config))).toEqual(snapshot(await generatedRequest(op, p)));
  });

  it.each(ops.map((op) => [op.name, op] as const))('%s with only what it requires', async (_, op) => {
    const p = { name: 'aws-node', namespace: 'kube-system', body: { data: { A: null } } };
    const ours = snapshot(await buildRequest(op, p, config));
    expect(ours).toEqual(snapshot(await generatedRequest(op, p)));
    expect(ours.headers.Authorization).toBe('Bearer t0ken');
  });

  it.each(ops.map((op) => [op.name, op] as const))('%s refuses a missing required parameter alike', async (_, op) => {
    for (const missing of op.required) {
      const p: Record<string, unknown> = { name: 'n', namespace: 'ns', body: {}, [missing]: undefined };
      const theirs = await generatedRequest(op, p).catch((e: Error) => e);
      await expect(buildRequest(op, p, config)).rejects.toEqual(theirs);
      expect(theirs).toMatchObject({ name: 'RequiredError', field: missing });
    }
  });
});

const OBJECT = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', creationTimestamp: '2026-11-30T10:00:00Z', resourceVersion: '7' },
  data: { MINIMUM_IP_TARGET: '3' },
  items: [
    { metadata: { name: 'q', creationTimestamp: '2026-11-30T10:01:00Z' }, lastTimestamp: '2026-11-30T10:02:00Z' },
  ],
  spec: { containers: [{ name: 'c', image: 'public.ecr.aws/x:1' }], nodeName: 'n' },
});
const STATUS = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'no', code: 0 });

function response(code: number, body: string, contentType: string | null = 'application/json'): ResponseContext {
  const headers: Record<string, string> = { 'retry-after': '2' };
  if (contentType) headers['content-type'] = contentType;
  return new ResponseContext(code, headers, {
    text: async () => body,
    binary: async () => Buffer.from(body),
  });
}

/** The outcome of a processor: the model (its class and fields) or the error's class and fields. */
async function outcome(p: Promise<unknown>) {
  try {
    const data = await p;
    return { data, type: (data as object | undefined)?.constructor?.name };
  } catch (e) {
    return { error: { ...(e as object), message: (e as Error).message, type: (e as Error).constructor.name } };
  }
}

describe('Kubernetes answers: generated-api.ts against the library’s generated response processors', () => {
  const codes = [200, 201, 202, 204, 401, 403, 404, 409, 410, 422, 429, 500, 503];
  it.each(ops.map((op) => [op.name, op] as const))('%s for every status code', async (_, op) => {
    for (const code of codes) {
      const body = code < 300 ? OBJECT : STATUS.replace('"code":0', `"code":${code}`);
      const theirs = await outcome(
        (processors[op.api][`${op.name}WithHttpInfo`](response(code, body)) as Promise<{ data: unknown }>).then(
          (r) => r.data,
        ),
      );
      expect({ code, ...(await outcome(readResponse(op, response(code, body)))) }).toEqual({ code, ...theirs });
    }
    // The model's own class, Dates converted: what the library's callers read.
    const read = (await readResponse(op, response(200, OBJECT))) as {
      metadata: { creationTimestamp?: unknown };
      items?: { metadata: { creationTimestamp: unknown } }[];
    };
    expect(read.constructor.name).toBe(op.returns);
    const created = (read.items?.[0] ?? read).metadata.creationTimestamp;
    expect(created).toBeInstanceOf(Date);
  });

  it('a 2xx answer without a content type is refused alike', async () => {
    const op = OPERATIONS.readNamespacedPod;
    const theirs = await outcome(processors.CoreV1Api.readNamespacedPodWithHttpInfo(response(200, OBJECT, null)));
    expect(theirs.error?.message).toMatch(/No Content-Type/);
    expect(await outcome(readResponse(op, response(200, OBJECT, null)))).toEqual(theirs);
  });
});
