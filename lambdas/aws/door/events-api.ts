// The events.k8s.io/v1 operations of pod-doctor's write-back, described as generated-api.ts describes
// the others (gen/apis/EventsV1Api.js of @kubernetes/client-node 1.4: path, method, query parameters
// in the generator's order, body and answer models) and sent by the same function.
// test/handlers/kubernetes-operations.test.ts compares each with the library's generated factory.
import type { EventsV1Event, EventsV1EventList } from '@kubernetes/client-node';
import type { Configuration, ConfigurationOptions } from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod } from '@kubernetes/client-node/dist/gen/http/http.js';
import type {
  EventsV1ApiListEventForAllNamespacesRequest as ListAllEvents,
  EventsV1ApiPatchNamespacedEventRequest as PatchEvent,
  EventsV1ApiReadNamespacedEventRequest as ReadEvent,
} from '@kubernetes/client-node/dist/gen/types/ObjectParamAPI.js';
import type { ClusterEvent } from '../../core/voices/cluster-events.js';
import { type Operation, send } from '../readers/kubernetes/generated-api.js';

/** A create of pod-doctor's own events (its MicroTimes already in RFC3339Micro strings, which the serializer keeps). */
interface CreateEvent {
  readonly namespace: string;
  readonly body: ClusterEvent;
}

const PRETTY = ['pretty', 'string'] as const;
const WRITE = [
  ['dryRun', 'string'],
  ['fieldManager', 'string'],
  ['fieldValidation', 'string'],
] as const;
const EVENTS = '/apis/events.k8s.io/v1/namespaces/{namespace}/events';
const EVENT = `${EVENTS}/{name}`;

/** The events.k8s.io/v1 operations pod-doctor calls. */
export const EVENT_OPERATIONS = {
  listEventForAllNamespaces: {
    api: 'EventsV1Api',
    name: 'listEventForAllNamespaces',
    method: HttpMethod.GET,
    path: '/apis/events.k8s.io/v1/events',
    required: [],
    query: [
      ['allowWatchBookmarks', 'boolean'],
      ['continue', 'string', '_continue'],
      ['fieldSelector', 'string'],
      ['labelSelector', 'string'],
      ['limit', 'number'],
      PRETTY,
      ['resourceVersion', 'string'],
      ['resourceVersionMatch', 'string'],
      ['sendInitialEvents', 'boolean'],
      ['timeoutSeconds', 'number'],
      ['watch', 'boolean'],
    ],
    returns: 'EventsV1EventList',
  },
  readNamespacedEvent: {
    api: 'EventsV1Api',
    name: 'readNamespacedEvent',
    method: HttpMethod.GET,
    path: EVENT,
    required: ['name', 'namespace'],
    query: [PRETTY],
    returns: 'EventsV1Event',
  },
  createNamespacedEvent: {
    api: 'EventsV1Api',
    name: 'createNamespacedEvent',
    method: HttpMethod.POST,
    path: EVENTS,
    required: ['namespace', 'body'],
    query: [PRETTY, ...WRITE],
    body: { type: 'EventsV1Event', mediaTypes: [] },
    returns: 'EventsV1Event',
  },
  patchNamespacedEvent: {
    api: 'EventsV1Api',
    name: 'patchNamespacedEvent',
    method: HttpMethod.PATCH,
    path: EVENT,
    required: ['name', 'namespace', 'body'],
    query: [PRETTY, ...WRITE, ['force', 'boolean']],
    body: {
      type: 'any',
      mediaTypes: [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
        'application/apply-patch+cbor',
      ],
    },
    returns: 'EventsV1Event',
  },
} as const satisfies Record<string, Operation>;

/** The EventsV1 methods pod-doctor calls (ObjectEventsV1Api's parameter objects): events, nothing else. */
export class EventsV1Api {
  constructor(private readonly configuration: Configuration) {}

  listEventForAllNamespaces(p: ListAllEvents = {}, options?: ConfigurationOptions) {
    return send<EventsV1EventList>(EVENT_OPERATIONS.listEventForAllNamespaces, p, this.configuration, options);
  }
  readNamespacedEvent(p: ReadEvent, options?: ConfigurationOptions) {
    return send<EventsV1Event>(EVENT_OPERATIONS.readNamespacedEvent, p, this.configuration, options);
  }
  createNamespacedEvent(p: CreateEvent, options?: ConfigurationOptions) {
    return send<EventsV1Event>(EVENT_OPERATIONS.createNamespacedEvent, p, this.configuration, options);
  }
  patchNamespacedEvent(p: PatchEvent, options?: ConfigurationOptions) {
    return send<EventsV1Event>(EVENT_OPERATIONS.patchNamespacedEvent, p, this.configuration, options);
  }
}
