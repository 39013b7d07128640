import { type ClusterEvent, INCIDENT_LABEL, incidentDigest } from '../../core/voices/cluster-events.js';
import {
  DEFAULT_SERIES_LIMITS,
  type EventWrite,
  existingEvent,
  planEventWrites,
  type SeriesLimits,
  type SeriesPatch,
  type SuppressedEvent,
} from '../../core/voices/event-series.js';
import { statusOf } from '../readers/kubernetes/api-errors.js';
import { PatchStrategy, setHeaderOptions } from '../readers/kubernetes/client.js';
import { type ClusterApi, KubernetesConflictError } from '../readers/kubernetes/cluster-api.js';
import { EventsV1Api } from './events-api.js';

/**
 * The write-back to the cluster: the incident's events (cluster-events.ts) written through a client
 * that holds events.k8s.io/v1 calls only, so this path cannot change anything but events. It reads
 * back the events the cluster holds for the incident (by its label), plans creates and series
 * patches (event-series.ts) and sends them; what it did not write is returned with why.
 */

/** The only calls the write-back can make: events.k8s.io/v1 Events, list, read, create, patch. */
export interface EventsClient {
  /** Events carrying the incident's label, in every namespace. */
  incidentEvents(incidentId: string): Promise<unknown[]>;
  create(event: ClusterEvent): Promise<void>;
  patchSeries(namespace: string, name: string, patch: SeriesPatch): Promise<void>;
}

/** The events client of one cluster, on {@link ClusterApi}'s retries, re-signing and paging. */
export function eventsClient(api: ClusterApi): EventsClient {
  return {
    incidentEvents: (incidentId) =>
      api.listAll('list pod-doctor events', (kc, cont) =>
        kc.makeApiClient(EventsV1Api).listEventForAllNamespaces({
          labelSelector: `${INCIDENT_LABEL}=${incidentDigest(incidentId)}`,
          limit: 100,
          ...(cont ? { _continue: cont } : {}),
        }),
      ),
    create: async (event) => {
      const { namespace, name } = event.metadata;
      const create = (kc: Parameters<Parameters<ClusterApi['call']>[1]>[0]) =>
        kc.makeApiClient(EventsV1Api).createNamespacedEvent({ namespace, body: event });
      // A create answered 5xx may have been stored: read it before sending it again.
      const settle = () =>
        api
          .call('read event', (kc) => kc.makeApiClient(EventsV1Api).readNamespacedEvent({ namespace, name }))
          .catch(() => undefined);
      await api.call(`create event ${namespace}/${name}`, create, settle);
    },
    patchSeries: async (namespace, name, patch) => {
      await api.call(`patch event ${namespace}/${name}`, (kc) =>
        kc
          .makeApiClient(EventsV1Api)
          .patchNamespacedEvent(
            { namespace, name, body: patch },
            setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
          ),
      );
    },
  };
}

/** What one write-back did. */
export interface WriteBackResult {
  /** `namespace/name` of events created. */
  readonly created: string[];
  /** `namespace/name` of events whose series was continued. */
  readonly series: string[];
  /** Not written by the plan: a repeat too soon, a cap. */
  readonly suppressed: SuppressedEvent[];
  /** Writes the API refused or that failed (another run wrote first: conflict). */
  readonly failed: { readonly event: string; readonly error: string }[];
}

/** Writes the incident's `desired` events: reads back what the cluster holds, then creates or continues series. */
export async function writeBack(
  client: EventsClient,
  incidentId: string,
  desired: readonly ClusterEvent[],
  now: Date,
  limits: SeriesLimits = DEFAULT_SERIES_LIMITS,
): Promise<WriteBackResult> {
  const held = (await client.incidentEvents(incidentId)).map(existingEvent).filter((e) => e !== undefined);
  const plan = planEventWrites(desired, held, now, limits);
  const result: WriteBackResult = { created: [], series: [], suppressed: [...plan.suppressed], failed: [] };
  const byName = new Map(desired.map((e) => [`${e.metadata.namespace}/${e.metadata.name}`, e]));
  for (const w of plan.writes) await send(client, w, byName, result);
  return result;
}

async function send(
  client: EventsClient,
  w: EventWrite,
  desired: Map<string, ClusterEvent>,
  result: WriteBackResult,
): Promise<void> {
  const key = w.op === 'create' ? `${w.event.metadata.namespace}/${w.event.metadata.name}` : `${w.namespace}/${w.name}`;
  try {
    if (w.op === 'create') {
      await client.create(w.event);
      result.created.push(key);
      return;
    }
    try {
      await client.patchSeries(w.namespace, w.name, w.patch);
      result.series.push(key);
    } catch (e) {
      // The event expired (event TTL) since it was listed: create it again, as client-go does.
      const again = desired.get(key);
      if (statusOf(e) !== 404 || !again) throw e;
      await client.create(again);
      result.created.push(key);
    }
  } catch (e) {
    const error =
      e instanceof KubernetesConflictError ? `conflict: ${e.message}` : `${(e as Error).name}: ${(e as Error).message}`;
    result.failed.push({ event: key, error: error.slice(0, 500) });
  }
}
