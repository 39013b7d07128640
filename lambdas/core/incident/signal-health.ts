import type { Signal } from '../contract/signals.js';

/**
 * The signal self-check (issue 29): per cluster, is each signal pod-doctor detects from alive?
 *  - `kubernetes-events`: the events reader read the cluster's events recently;
 *  - `dataplane-logs`: the dataplane group carried a kubelet line in the last 24 h;
 *  - `application-logs`: the application group carried aws-node lines in the last 24 h;
 *  - `cloudtrail`: a trail logs management events in the Region (EventBridge receives API calls).
 * `ok` and `silent` are what notifications are about; `absent` says the source is not set up at all
 * (no log group, no trail), `unknown` that it could not be read (then nothing is notified).
 */
export const CHECKED_SIGNALS = ['kubernetes-events', 'dataplane-logs', 'application-logs', 'cloudtrail'] as const;
export type CheckedSignal = (typeof CHECKED_SIGNALS)[number] & Signal;

export type SignalStatus = 'ok' | 'silent' | 'absent' | 'unknown';

export interface SignalReading {
  readonly signal: CheckedSignal;
  readonly status: SignalStatus;
  /** One line: what was found (or why it could not be read). */
  readonly detail: string;
}

/** How long each signal may be quiet before it counts as silent. */
export const SILENT_AFTER_MS: Readonly<Record<CheckedSignal, number>> = {
  // The reader runs every minute; a quarter of an hour without a successful read is not a blip.
  'kubernetes-events': 15 * 60_000,
  'dataplane-logs': 24 * 3_600_000,
  'application-logs': 24 * 3_600_000,
  cloudtrail: 24 * 3_600_000,
};

/** A signal counts as down when it is silent or absent (unknown: not known to be down). */
export const isDown = (s: SignalStatus): boolean => s === 'silent' || s === 'absent';

/** What the events reader's state says about the cluster's events. */
export function eventsReading(
  state: { lastReadAt?: number; lastAttemptAt?: number; lastError?: string } | undefined,
  now: number,
): SignalReading {
  const signal = 'kubernetes-events';
  if (!state?.lastAttemptAt) return { signal, status: 'unknown', detail: 'the events reader has not run yet' };
  if (state.lastReadAt !== undefined && now - state.lastReadAt <= SILENT_AFTER_MS[signal])
    return { signal, status: 'ok', detail: `events read at ${new Date(state.lastReadAt).toISOString()}` };
  return {
    signal,
    status: 'silent',
    detail: `events not readable${state.lastReadAt ? ` since ${new Date(state.lastReadAt).toISOString()}` : ''}: ${state.lastError ?? 'no successful read'}`,
  };
}

/** The events of a cluster pod-doctor has no Kubernetes API access to (`kubernetesApi: false`): never read. */
export function eventsWithoutApi(): SignalReading {
  return {
    signal: 'kubernetes-events',
    status: 'absent',
    detail: 'kubernetesApi is false for this cluster: pod-doctor has no access entry there and reads no events',
  };
}

/** A log group's reading from whether it exists and when it last carried a matching line. */
export function logReading(
  signal: 'dataplane-logs' | 'application-logs',
  o: { group: string; exists: boolean; lastMatchAt?: number; what: string },
): SignalReading {
  if (!o.exists) return { signal, status: 'absent', detail: `log group ${o.group} does not exist` };
  if (o.lastMatchAt === undefined)
    return { signal, status: 'silent', detail: `no ${o.what} line in ${o.group} in the last 24 h` };
  return {
    signal,
    status: 'ok',
    detail: `${o.what} line in ${o.group} at ${new Date(o.lastMatchAt).toISOString()}`,
  };
}

/** The CloudTrail reading from the trails covering the Region and whether one of them logs. */
export function trailReading(o: { region: string; covering: readonly string[]; logging?: string }): SignalReading {
  const signal = 'cloudtrail';
  if (o.logging) return { signal, status: 'ok', detail: `trail ${o.logging} is logging in ${o.region}` };
  if (o.covering.length === 0) return { signal, status: 'absent', detail: `no trail covers ${o.region}` };
  return {
    signal,
    status: 'silent',
    detail: `trail(s) ${o.covering.join(', ')} cover ${o.region} but none is logging`,
  };
}

/** A change of one signal worth one notification: it went down, or it came back. */
export interface SignalTransition {
  readonly cluster: string;
  readonly signal: CheckedSignal;
  readonly from?: SignalStatus;
  readonly to: SignalStatus;
  readonly subject: string;
  readonly message: string;
}

/**
 * The notification for a signal that changed from `from` (undefined: first check) to `reading`, or
 * nothing: only going down (silent, absent) and coming back (ok after down) notify; a first check
 * that finds the signal ok, and `unknown` either way, say nothing.
 */
export function transitionOf(
  cluster: string,
  from: SignalStatus | undefined,
  reading: SignalReading,
  others: readonly SignalReading[],
): SignalTransition | undefined {
  const to = reading.status;
  if (to === 'unknown' || to === from) return undefined;
  const wentDown = isDown(to) && !(from !== undefined && isDown(from));
  const cameBack = to === 'ok' && from !== undefined && isDown(from);
  if (!wentDown && !cameBack) return undefined;
  const alive = others.filter((o) => o.signal !== reading.signal && o.status === 'ok').map((o) => o.signal);
  const continues = alive.length
    ? `detection continues from ${alive.join(', ')}`
    : 'no other signal is alive: only the sweep of stuck pods remains';
  const subject = cameBack
    ? `[pod-doctor] ${reading.signal} back on ${cluster}`
    : `[pod-doctor] ${reading.signal} ${to === 'absent' ? 'absent' : 'silent'} on ${cluster}`;
  const message = cameBack
    ? `${reading.signal} is back on ${cluster}: ${reading.detail}`
    : `${reading.signal} ${to === 'absent' ? 'absent' : `silent for ${silentFor(reading.signal)}`} on ${cluster}: ${continues}. ${reading.detail}`;
  return { cluster, signal: reading.signal, ...(from ? { from } : {}), to, subject, message };
}

function silentFor(signal: CheckedSignal): string {
  const ms = SILENT_AFTER_MS[signal];
  return ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`;
}
