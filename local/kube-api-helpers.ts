import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The local Kubernetes API server's helpers: its certificate, `Status` bodies, selectors and list pages. */

export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync('/tmp/pod-doctor-kube-');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=kubernetes',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export const REASONS: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
};

export function labelsMatch(obj: Record<string, unknown>, selector: string | null): boolean {
  if (!selector) return true;
  const labels = ((obj.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {}) as Record<
    string,
    string
  >;
  return selector.split(',').every((term) => {
    const [k = '', v] = term.split('=');
    return labels[k] === v;
  });
}

/** Field selector terms (`a=b`, `a==b`, `a!=b`), ANDed, as the API server reads them. */
export function fieldMatches(obj: Record<string, unknown>, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const negated = term.includes('!=');
    const [path, value] = term.split(negated ? '!=' : /==?/);
    const actual = (path ?? '')
      .split('.')
      .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
    return (String(actual) === value) !== negated;
  });
}

export function page(items: Record<string, unknown>[], query: URLSearchParams, kind: string): Record<string, unknown> {
  const limit = Number(query.get('limit') ?? 0) || items.length;
  const start = Number(Buffer.from(query.get('continue') ?? '', 'base64url').toString() || 0);
  const slice = items.slice(start, start + limit);
  const next = start + limit < items.length ? Buffer.from(String(start + limit)).toString('base64url') : undefined;
  return {
    kind,
    apiVersion: 'v1',
    metadata: { resourceVersion: '12345', ...(next ? { continue: next } : {}) },
    items: slice,
  };
}

/** An events.k8s.io create: a report of the run (kubectl events shows it), not a change to an object. */
export const isEventReport = (r: { readonly method: string; readonly path: string }): boolean =>
  r.method === 'POST' && /^\/apis\/events\.k8s\.io\/v1\/namespaces\/[^/]+\/events$/.test(r.path);

/** A request that changed an object: any method but GET, except an event report. */
export const isChange = (r: { readonly method: string; readonly path: string }): boolean =>
  r.method !== 'GET' && !isEventReport(r);
