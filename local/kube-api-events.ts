import { randomUUID } from 'node:crypto';
import { fieldMatches, labelsMatch, page } from './kube-api-helpers.js';
import { type Answer, failure, mergePatch } from './kube-api-writes.js';

/**
 * events.k8s.io/v1 Events as the API server keeps them: create (POST), read, list (namespaced and
 * across namespaces, label and field selectors) and merge or strategic-merge patch, with the
 * validation the API server applies to this API version (pkg/apis/core/validation/events.go:
 * ValidateEventCreate, ValidateEventUpdate, validateV1EventSeries, legacyValidateEvent; Go `len`, so
 * byte lengths), MicroTime decoding with metav1.RFC3339Micro (six fraction digits, else 400), 409 on
 * an existing name or a stale resourceVersion, 422 Invalid with the field errors.
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/events.go
 * https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/
 */
type Obj = Record<string, unknown>;

const PREFIX = '/apis/events.k8s.io/v1';
const RESOURCE = 'events.events.k8s.io';
/** metav1.RFC3339Micro: "2006-01-02T15:04:05.000000Z07:00". */
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const TIME_FIELDS = ['eventTime', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp'];
const IMMUTABLE = [
  'regarding',
  'reason',
  'note',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingController',
  'reportingInstance',
];
const PATCH_TYPES = ['application/merge-patch+json', 'application/strategic-merge-patch+json'];

const bytes = (v: unknown) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const meta = (o: Obj) => (o.metadata ?? {}) as { name?: string; namespace?: string; resourceVersion?: string };

/** A Go field error list as the API server words it (`field: Required value`, `field: Invalid value: …`). */
type FieldError = { field: string; message: string };
const required = (field: string): FieldError => ({ field, message: `${field}: Required value` });
const invalid = (field: string, value: unknown, why: string): FieldError => ({
  field,
  message: `${field}: Invalid value: ${JSON.stringify(value ?? '')}: ${why}`,
});

function invalidAnswer(name: string, errors: FieldError[]): Answer {
  return [
    422,
    failure(422, 'Invalid', `Event.events.k8s.io "${name}" is invalid: [${errors.map((e) => e.message).join(', ')}]`, {
      name,
      group: 'events.k8s.io',
      kind: 'Event',
      causes: errors.map((e) => ({ reason: 'FieldValueInvalid', message: e.message, field: e.field })),
    }),
  ];
}

/** legacyValidateEvent for an event with an eventTime (every events.k8s.io/v1 event has one). */
function legacyErrors(e: Obj, namespace: string): FieldError[] {
  const errors: FieldError[] = [];
  const regarding = (e.regarding ?? {}) as { namespace?: string };
  if (!regarding.namespace && namespace !== 'default' && namespace !== 'kube-system')
    errors.push(invalid('involvedObject.namespace', regarding.namespace, 'does not match event.namespace'));
  const controller = str(e.reportingController);
  if (!controller) errors.push(required('reportingController'));
  else if (!QUALIFIED_NAME.test(controller) || (controller.split('/').pop() ?? '').length > 63)
    errors.push(invalid('reportingController', controller, 'must be a qualified name'));
  const limited: [string, number][] = [
    ['reportingInstance', 128],
    ['action', 128],
    ['reason', 128],
  ];
  for (const [field, max] of limited) {
    if (!str(e[field])) errors.push(required(field));
    else if (bytes(e[field]) > max) errors.push(invalid(field, '', `can have at most ${max} characters`));
  }
  if (bytes(e.note) > 1024) errors.push(invalid('message', '', 'can have at most 1024 characters'));
  return errors;
}

function seriesErrors(e: Obj): FieldError[] {
  const s = e.series as { count?: number; lastObservedTime?: string } | undefined;
  if (!s) return [];
  return [
    ...((s.count ?? 0) < 2 ? [invalid('series.count', '', 'should be at least 2')] : []),
    ...(!s.lastObservedTime ? [required('series.lastObservedTime')] : []),
  ];
}

/** ValidateEventCreate for events.k8s.io/v1. */
export function createErrors(e: Obj, namespace: string): FieldError[] {
  const name = str(meta(e).name);
  return [
    ...legacyErrors(e, namespace),
    ...(!name ? [required('metadata.name')] : []),
    ...(name && (!DNS_SUBDOMAIN.test(name) || name.length > 253)
      ? [
          invalid(
            'metadata.name',
            name,
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'",
          ),
        ]
      : []),
    ...seriesErrors(e),
    ...(!e.eventTime ? [required('eventTime')] : []),
    ...(e.type !== 'Normal' && e.type !== 'Warning' ? [invalid('type', '', `has invalid value: ${str(e.type)}`)] : []),
    ...(e.deprecatedFirstTimestamp ? [invalid('firstTimestamp', '', 'needs to be unset')] : []),
    ...(e.deprecatedLastTimestamp ? [invalid('lastTimestamp', '', 'needs to be unset')] : []),
    ...(e.deprecatedCount ? [invalid('count', '', 'needs to be unset')] : []),
    ...(e.deprecatedSource ? [invalid('source', '', 'needs to be unset')] : []),
  ];
}

/** ValidateEventUpdate for events.k8s.io/v1: everything but the series (and labels) is immutable. */
export function updateErrors(after: Obj, before: Obj, namespace: string): FieldError[] {
  const changed = (k: string) => JSON.stringify(after[k] ?? null) !== JSON.stringify(before[k] ?? null);
  return [
    ...legacyErrors(after, namespace),
    ...(changed('series') ? seriesErrors(after) : []),
    ...IMMUTABLE.filter(changed).map((k) => invalid(k, after[k], 'field is immutable')),
  ];
}

/** A body the decoder refuses before validation: a MicroTime or Time that does not parse. */
function decodeError(e: Obj): string | undefined {
  const times: [string, unknown][] = [
    ...TIME_FIELDS.map((f): [string, unknown] => [f, e[f]]),
    ['series.lastObservedTime', (e.series as Obj | undefined)?.lastObservedTime],
  ];
  for (const [field, v] of times) {
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !MICRO_TIME.test(v))
      return `Event in version "v1" cannot be handled as a Event: ${field}: parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`;
  }
  return undefined;
}

export class LocalEvents {
  private revision = 50_000;
  /** Events by `namespace/name`, as the API server stores them. */
  readonly stored = new Map<string, Obj>();

  /** Every event held, in creation order. */
  all(): Obj[] {
    return [...this.stored.values()];
  }

  /** The answer to an events.k8s.io/v1 request, or undefined for any other path. */
  answer(method: string, path: string, query: URLSearchParams, body: string, contentType?: string): Answer | undefined {
    if (!path.startsWith(`${PREFIX}/`)) return undefined;
    if (method === 'GET' && path === `${PREFIX}/events`) return this.list(undefined, query);
    const m = /^\/apis\/events\.k8s\.io\/v1\/namespaces\/([^/]+)\/events(?:\/([^/]+))?$/.exec(path);
    if (!m) return [404, failure(404, 'NotFound', `the server could not find the requested resource (${path})`)];
    const [, namespace, name] = m;
    if (method === 'GET') return name ? this.read(namespace, name) : this.list(namespace, query);
    if (method === 'POST' && !name) return this.create(namespace, body);
    if (method === 'PATCH' && name) return this.patch(namespace, name, body, contentType);
    return [405, failure(405, 'MethodNotAllowed', `${method} is not supported on ${path}`)];
  }

  private list(namespace: string | undefined, q: URLSearchParams): Answer {
    const items = this.all().filter(
      (e) =>
        (namespace === undefined || meta(e).namespace === namespace) &&
        labelsMatch(e, q.get('labelSelector')) &&
        fieldMatches(e, q.get('fieldSelector')),
    );
    return [200, { ...page(items, q, 'EventList'), apiVersion: 'events.k8s.io/v1' }];
  }

  private read(namespace: string, name: string): Answer {
    const found = this.stored.get(`${namespace}/${name}`);
    return found ? [200, found] : [404, failure(404, 'NotFound', `${RESOURCE} "${name}" not found`)];
  }

  private create(namespace: string, body: string): Answer {
    let e: Obj;
    try {
      e = JSON.parse(body) as Obj;
    } catch {
      return [400, failure(400, 'BadRequest', 'the body of the request was in an unknown format')];
    }
    const decode = decodeError(e);
    if (decode) return [400, failure(400, 'BadRequest', decode)];
    const m = meta(e);
    if (m.namespace && m.namespace !== namespace)
      return [
        400,
        failure(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        ),
      ];
    const errors = createErrors(e, namespace);
    if (errors.length) return invalidAnswer(str(m.name), errors);
    const name = str(m.name);
    if (this.stored.has(`${namespace}/${name}`))
      return [409, failure(409, 'AlreadyExists', `${RESOURCE} "${name}" already exists`)];
    const stored: Obj = {
      ...e,
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        ...(e.metadata as Obj),
        namespace,
        uid: randomUUID(),
        resourceVersion: String(++this.revision),
        creationTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    };
    this.stored.set(`${namespace}/${name}`, stored);
    return [201, stored];
  }

  private patch(namespace: string, name: string, body: string, contentType?: string): Answer {
    if (!contentType || !PATCH_TYPES.includes(contentType))
      return [415, failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format`)];
    const before = this.stored.get(`${namespace}/${name}`);
    if (!before) return [404, failure(404, 'NotFound', `${RESOURCE} "${name}" not found`)];
    const patch = JSON.parse(body || '{}') as Obj;
    const decode = decodeError(patch);
    if (decode) return [400, failure(400, 'BadRequest', decode)];
    const wanted = meta(patch).resourceVersion;
    if (wanted !== undefined && wanted !== meta(before).resourceVersion)
      return [
        409,
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${RESOURCE} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        ),
      ];
    const after = mergePatch(structuredClone(before), patch) as Obj;
    const errors = updateErrors(after, before, namespace);
    if (errors.length) return invalidAnswer(name, errors);
    const stored = { ...after, metadata: { ...(after.metadata as Obj), resourceVersion: String(++this.revision) } };
    this.stored.set(`${namespace}/${name}`, stored);
    return [200, stored];
  }
}
