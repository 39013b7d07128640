import * as z from 'zod/mini';
import '../text/zod-english.js';
import { type ClusterEvent, microTime } from './cluster-events.js';

/**
 * Which of an incident's events to write, and how: a new event is created; the same event again (the
 * same name: the same incident, object, type, action, reason and reporter) becomes an event series,
 * as client-go's events broadcaster makes one (k8s.io/client-go/tools/events: an isomorphic event
 * patches `series` {count, lastObservedTime} of the first instead of creating another; the first has
 * no series, so the first repeat is count 2, validation/events.go validateV1EventSeries). Pure: the
 * events the cluster already holds for the incident (read back by its label) are an argument.
 * https://github.com/kubernetes/client-go/blob/master/tools/events/event_broadcaster.go
 *
 * Rate limit and bound: a repeat within `repeatAfterMs` of the last observation is not written; an
 * incident never holds more than `maxEventsPerIncident` events; one run writes at most
 * `maxWritesPerRun`. What is not written is returned with why (counted, never silently dropped).
 */

export interface SeriesLimits {
  /** A repeat sooner than this after the event's last observation is not written. @default 5 min */
  readonly repeatAfterMs: number;
  /** Events one incident may hold in the cluster (created, all runs). @default 24 */
  readonly maxEventsPerIncident: number;
  /** Creates and series patches one run may send. @default 24 */
  readonly maxWritesPerRun: number;
}
export const DEFAULT_SERIES_LIMITS: SeriesLimits = {
  repeatAfterMs: 5 * 60_000,
  maxEventsPerIncident: 24,
  maxWritesPerRun: 24,
};

/** An event of the incident the cluster holds (its name, version and series). */
export interface ExistingEvent {
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly eventTime: string;
  readonly series?: { readonly count: number; readonly lastObservedTime: string };
}

const existingSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string().check(z.minLength(1)),
    namespace: z.string().check(z.minLength(1)),
    resourceVersion: z.string().check(z.minLength(1)),
  }),
  eventTime: z.string(),
  series: z.optional(z.looseObject({ count: z.number(), lastObservedTime: z.string() })),
});

/** An event object read back from the API (events.k8s.io/v1 Event), or undefined if it is not one. */
export function existingEvent(o: unknown): ExistingEvent | undefined {
  const r = existingSchema.safeParse(o);
  if (!r.success) return undefined;
  const { metadata: m, eventTime, series } = r.data;
  return {
    namespace: m.namespace,
    name: m.name,
    resourceVersion: m.resourceVersion,
    eventTime,
    ...(series ? { series: { count: series.count, lastObservedTime: series.lastObservedTime } } : {}),
  };
}

/** The strategic merge patch of a repeat: only the series, guarded by the version read. */
export interface SeriesPatch {
  readonly metadata: { readonly resourceVersion: string };
  readonly series: { readonly count: number; readonly lastObservedTime: string };
}

export type EventWrite =
  | { readonly op: 'create'; readonly event: ClusterEvent }
  | { readonly op: 'series'; readonly namespace: string; readonly name: string; readonly patch: SeriesPatch };

export type SuppressedWhy = 'repeat-within-interval' | 'incident-cap' | 'run-cap';
export interface SuppressedEvent {
  readonly namespace: string;
  readonly name: string;
  readonly why: SuppressedWhy;
}

export interface WritePlan {
  readonly writes: readonly EventWrite[];
  readonly suppressed: readonly SuppressedEvent[];
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/** When the event was last observed: its series' last observation, else its own time. */
function lastObserved(e: ExistingEvent): number {
  return Date.parse(e.series?.lastObservedTime ?? e.eventTime);
}

/** The writes of one run for the incident's `desired` events, given the ones the cluster holds. */
export function planEventWrites(
  desired: readonly ClusterEvent[],
  existing: readonly ExistingEvent[],
  now: Date,
  limits: SeriesLimits = DEFAULT_SERIES_LIMITS,
): WritePlan {
  const held = new Map(existing.map((e) => [keyOf(e.namespace, e.name), e]));
  let objects = held.size;
  const writes: EventWrite[] = [];
  const suppressed: SuppressedEvent[] = [];
  const skip = (e: ClusterEvent, why: SuppressedWhy) =>
    suppressed.push({ namespace: e.metadata.namespace, name: e.metadata.name, why });
  for (const e of desired) {
    const before = held.get(keyOf(e.metadata.namespace, e.metadata.name));
    if (before && now.getTime() - lastObserved(before) < limits.repeatAfterMs) skip(e, 'repeat-within-interval');
    else if (writes.length >= limits.maxWritesPerRun) skip(e, 'run-cap');
    else if (before) writes.push(seriesWrite(before, now));
    else if (objects >= limits.maxEventsPerIncident) skip(e, 'incident-cap');
    else {
      objects += 1;
      writes.push({ op: 'create', event: e });
    }
  }
  return { writes, suppressed };
}

function seriesWrite(before: ExistingEvent, now: Date): EventWrite {
  return {
    op: 'series',
    namespace: before.namespace,
    name: before.name,
    patch: {
      metadata: { resourceVersion: before.resourceVersion },
      series: { count: (before.series?.count ?? 1) + 1, lastObservedTime: microTime(now) },
    },
  };
}
