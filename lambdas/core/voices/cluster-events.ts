import { createHash } from 'node:crypto';
import { outboundText } from '../text/outbound.js';
import type { IncidentNotice } from './notice.js';

/**
 * What pod-doctor writes back to the cluster: Kubernetes events (events.k8s.io/v1) on each stuck pod
 * and on its node, so `kubectl describe pod` and `kubectl events` show the cause with its evidence,
 * each action with its outcome and a link to the summary. Pure: the events are made from the
 * incident's notice (the same one chat and paging read) and the objects the Kubernetes inspection
 * named (API objects, never names from a log line).
 *
 * The API's limits (pkg/apis/core/validation/events.go, ValidateEventCreate for events.k8s.io/v1 and
 * legacyValidateEvent: Go `len`, so bytes): note ≤ 1024, reason, action and reportingInstance ≤ 128,
 * reportingController a qualified name, eventTime a MicroTime with six fraction digits
 * (metav1.RFC3339Micro), an event about a cluster-scoped object (a Node) in `default`.
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/events.go
 * https://github.com/kubernetes/apimachinery/blob/master/pkg/apis/meta/v1/micro_time.go
 */

export const REPORTING_CONTROLLER = 'pod-doctor';
/** Byte limits of events.k8s.io/v1 (validation/events.go). */
export const EVENT_API_LIMITS = { note: 1024, reason: 128, action: 128, reportingInstance: 128, name: 253 } as const;
/** Label every event pod-doctor writes carries: the incident's digest (the cap counts by it). */
export const INCIDENT_LABEL = 'pod-doctor.io/incident';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** How many objects and events one incident may write. */
export interface WriteBackBounds {
  /** Stuck pods that get events (the node always does). @default 5 */
  readonly maxPods: number;
  /** Actions reported, each one event per object. @default 3 */
  readonly maxActions: number;
}
export const DEFAULT_WRITE_BACK_BOUNDS: WriteBackBounds = { maxPods: 5, maxActions: 3 };

/** An object an event is about, as the Kubernetes inspection read it. */
export interface RegardingObject {
  readonly kind: 'Pod' | 'Node';
  readonly name: string;
  /** Pods only. */
  readonly namespace?: string;
  readonly uid?: string;
}

/** The objects of one incident: its node and its stuck pods. */
export interface WriteBackTargets {
  readonly node?: { readonly name: string; readonly uid?: string };
  readonly pods: readonly { readonly namespace: string; readonly name: string; readonly uid?: string }[];
}

/** An events.k8s.io/v1 Event as pod-doctor creates it. */
export interface ClusterEvent {
  readonly apiVersion: 'events.k8s.io/v1';
  readonly kind: 'Event';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
  };
  /** RFC3339 with microseconds (metav1.MicroTime). */
  readonly eventTime: string;
  readonly reportingController: string;
  readonly reportingInstance: string;
  readonly action: string;
  readonly reason: string;
  readonly type: 'Normal' | 'Warning';
  readonly note: string;
  readonly regarding: {
    readonly apiVersion: 'v1';
    readonly kind: 'Pod' | 'Node';
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
  };
}

/** A reporting instance, a regarding object or a label value the API would refuse. */
export class ClusterEventInputError extends Error {
  override readonly name = 'ClusterEventInputError';
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).length;

/** `s` within `max` UTF-8 bytes, never splitting a code point, ending in "…" when cut. */
export function clipBytes(s: string, max: number): string {
  if (bytes(s) <= max) return s;
  let out = '';
  let used = 0;
  const room = max - bytes('…');
  for (const ch of s) {
    const n = bytes(ch);
    if (used + n > room) break;
    out += ch;
    used += n;
  }
  return `${out}…`;
}

/**
 * Tenant text (a log line, an event message) inside a note: one line, redacted, in double quotes with
 * `"` and `\` escaped, so it reads as a quotation and cannot pass for pod-doctor's own sentence.
 */
export function quoted(s: string): string {
  return `"${outboundText(s).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** metav1.MicroTime's JSON form: RFC 3339 with six fraction digits, UTC. */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `restart-runtime` → `RestartRuntime` (machine-readable, as Kubernetes actions and reasons are). */
export function camelWord(id: string): string {
  const word = id
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p.length > 0)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
  return (word || 'Action').slice(0, EVENT_API_LIMITS.action);
}

/** The label value of an incident (label values: ≤ 63 characters, alphanumeric ends). */
export function incidentDigest(incidentId: string): string {
  return createHash('sha256').update(incidentId).digest('hex').slice(0, 40);
}

/** An action's outcome as an event's reason and type: a failure is a Warning. */
export function actionOutcome(status: string): { reason: string; type: 'Normal' | 'Warning' } {
  const s = status.toLowerCase();
  if (/fail|rolled-back|rollback|timed out|timedout|cancel|not sent|blocked|error/.test(s))
    return { reason: 'ActionFailed', type: 'Warning' };
  if (/waiting for approval|pending approval|approval/.test(s) && !/approved/.test(s))
    return { reason: 'ApprovalRequested', type: 'Normal' };
  if (/not run|rejected|skipped/.test(s)) return { reason: 'ActionNotRun', type: 'Normal' };
  if (/dry-run|dry run/.test(s)) return { reason: 'ActionDryRun', type: 'Normal' };
  if (/verified/.test(s)) return { reason: 'ActionVerified', type: 'Normal' };
  if (/success|done|applied|repaired|evicted|drained/.test(s)) return { reason: 'ActionSucceeded', type: 'Normal' };
  return { reason: 'ActionReported', type: 'Normal' };
}

/** The objects of an incident that get events: its node, then at most `maxPods` stuck pods (valid names only). */
export function regardingObjects(t: WriteBackTargets, bounds: WriteBackBounds): RegardingObject[] {
  const node: RegardingObject[] =
    t.node && DNS_SUBDOMAIN.test(t.node.name) ? [{ kind: 'Node', name: t.node.name, uid: t.node.uid }] : [];
  const pods = t.pods
    .filter((p) => DNS_SUBDOMAIN.test(p.name) && DNS_LABEL.test(p.namespace))
    .slice(0, bounds.maxPods)
    .map((p): RegardingObject => ({ kind: 'Pod', name: p.name, namespace: p.namespace, uid: p.uid }));
  return [...node, ...pods];
}

/** `id: status` as the notice lists actions (stored-notice.ts); the id is pod-doctor's own. */
function splitAction(line: string): { id: string; status: string } {
  const at = line.indexOf(': ');
  return at < 0 ? { id: line, status: '' } : { id: line.slice(0, at), status: line.slice(at + 2) };
}

/** The summary link (the evidence bucket's JSON, else the execution). */
function summaryLink(n: Pick<IncidentNotice, 'links'>): string | undefined {
  return (n.links.find((l) => l.label === 'summary') ?? n.links.find((l) => l.label === 'execution'))?.url;
}

/**
 * A note: pod-doctor's words first, tenant text quoted, cut in the middle so the tail (incident and
 * summary link) always survives the 1 KB limit.
 */
export function noteOf(head: string, quotes: readonly string[], tail: string): string {
  const end = outboundText(tail);
  const body = [outboundText(head), ...quotes.map(quoted)].join(' ');
  const room = EVENT_API_LIMITS.note - bytes(end) - 1;
  return clipBytes(`${clipBytes(body, Math.max(0, room))} ${end}`.trim(), EVENT_API_LIMITS.note);
}

/** The parts of one incident's notice the events say. */
export type WriteBackNotice = Pick<IncidentNotice, 'incidentId' | 'class' | 'cause' | 'evidence' | 'actions' | 'links'>;

interface EventDraft {
  readonly action: string;
  readonly reason: string;
  readonly type: 'Normal' | 'Warning';
  readonly note: string;
}

/** The cause and each action, as event drafts (the same for every object of the incident). */
export function eventDrafts(n: WriteBackNotice, bounds: WriteBackBounds = DEFAULT_WRITE_BACK_BOUNDS): EventDraft[] {
  const link = summaryLink(n);
  const tail = `incident ${n.incidentId}${link ? `; summary: ${link}` : ''}`;
  const evidence = n.evidence.slice(0, 2);
  const cause: EventDraft = {
    action: 'Diagnose',
    reason: 'Diagnosed',
    type: 'Warning',
    note: noteOf(`${n.cause}.${evidence.length ? ' Evidence:' : ''}`, evidence, tail),
  };
  const actions = n.actions.slice(0, bounds.maxActions).map(splitAction);
  return [
    cause,
    ...actions.map(({ id, status }): EventDraft => {
      const outcome = actionOutcome(status);
      return {
        action: camelWord(id),
        ...outcome,
        note: noteOf(`pod-doctor ${id}: ${status || 'no outcome recorded'}.`, [], tail),
      };
    }),
  ];
}

/** The event's name: the object's name and a digest of the incident and the event's key (stable across runs). */
export function eventName(
  incidentId: string,
  o: RegardingObject,
  d: Pick<EventDraft, 'action' | 'reason' | 'type'>,
  instance: string,
): string {
  const key = [
    incidentId,
    o.kind,
    o.namespace ?? '',
    o.name,
    d.type,
    d.action,
    d.reason,
    REPORTING_CONTROLLER,
    instance,
  ];
  const digest = createHash('sha256').update(key.join('\n')).digest('hex').slice(0, 16);
  const room = EVENT_API_LIMITS.name - digest.length - 1;
  return `${o.name.slice(0, room).replace(/[-.]+$/, '')}.${digest}`;
}

/**
 * The events of one incident: every draft on every regarding object. A reporting instance the API
 * would refuse is an error (it is pod-doctor's configuration, not tenant text).
 */
export function clusterEvents(
  n: WriteBackNotice,
  targets: WriteBackTargets,
  reportingInstance: string,
  at: Date,
  bounds: WriteBackBounds = DEFAULT_WRITE_BACK_BOUNDS,
): ClusterEvent[] {
  if (!reportingInstance || bytes(reportingInstance) > EVENT_API_LIMITS.reportingInstance)
    throw new ClusterEventInputError(`reportingInstance must be 1 to 128 bytes: ${reportingInstance.slice(0, 40)}`);
  const drafts = eventDrafts(n, bounds);
  const labels = { [MANAGED_BY_LABEL]: REPORTING_CONTROLLER, [INCIDENT_LABEL]: incidentDigest(n.incidentId) };
  return regardingObjects(targets, bounds).flatMap((o) =>
    drafts.map(
      (d): ClusterEvent => ({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: {
          name: eventName(n.incidentId, o, d, reportingInstance),
          namespace: o.namespace ?? 'default',
          labels,
        },
        eventTime: microTime(at),
        reportingController: REPORTING_CONTROLLER,
        reportingInstance,
        ...d,
        regarding: {
          apiVersion: 'v1',
          kind: o.kind,
          name: o.name,
          ...(o.namespace ? { namespace: o.namespace } : {}),
          ...(o.uid ? { uid: o.uid } : {}),
        },
      }),
    ),
  );
}
