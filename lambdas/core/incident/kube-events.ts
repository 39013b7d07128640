import * as z from 'zod/mini';
import { trustedSandboxClass } from '../contract/trust.js';
import { classifyMessage } from '../detect/classifier.js';
import { type Entities, extractEntities } from '../detect/entities.js';
import type { Occurrence } from './incidents.js';

/**
 * Kubernetes Warning events as a detection source (issue 29). A core/v1 Event read from the API
 * (list or watch) becomes at most one occurrence on the same catalogue and incident keys as a log
 * line. Everything in an event is written by whoever created it (kubelet, or anyone allowed to
 * create events in a namespace): its text classifies, its `involvedObject` says where to look, and
 * nothing here chooses a target; the events reader corroborates it with the pod's kubelet-written
 * status and keys it on the pod's bound node (corroboration.ts).
 * Shape: https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/event-v1/
 */

/** What the API returns: strings from a watch, Dates from the client's deserializer on a list. */
const time = z.optional(z.nullable(z.union([z.string(), z.date()])));
const text = z.optional(z.nullable(z.string()));

export const kubeEventSchema = z.object({
  metadata: z.object({
    name: text,
    namespace: text,
    uid: text,
    resourceVersion: text,
  }),
  involvedObject: z.optional(z.object({ kind: text, namespace: text, name: text, uid: text, fieldPath: text })),
  reason: text,
  message: text,
  type: text,
  count: z.optional(z.nullable(z.number())),
  firstTimestamp: time,
  lastTimestamp: time,
  eventTime: time,
  series: z.optional(z.nullable(z.object({ count: z.optional(z.number()), lastObservedTime: time }))),
  source: z.optional(z.nullable(z.object({ component: text, host: text }))),
  reportingComponent: text,
  reportingInstance: text,
});

export type KubeEvent = z.output<typeof kubeEventSchema>;

/**
 * Reasons kubelet gives the failures pod-doctor knows (pkg/kubelet/events/event.go): a pod's sandbox,
 * pulls, mounts and network, and the node's image and disk housekeeping. Other reasons are counted
 * and left (the reader selects `type=Warning` on the server; reasons cannot be selected as a set).
 */
export const EVENT_REASONS = [
  'FailedCreatePodSandBox',
  'Failed',
  'FailedMount',
  'NetworkNotReady',
  'FailedKillPod',
  'FreeDiskSpaceFailed',
  'ImageGCFailed',
  'ContainerGCFailed',
] as const;

/** The server-side selection of every read (a field selector can only AND equality terms). */
export const WARNING_SELECTOR = 'type=Warning';

/**
 * kubelet's event correlator folds ten or more similar events of an object within ten minutes into
 * one whose message carries this prefix (client-go tools/record/events_cache.go,
 * EventAggregatorByReasonMessageFunc); the events it folded were read already.
 * https://github.com/kubernetes/client-go/blob/master/tools/record/events_cache.go
 */
export const COMBINED_PREFIX = '(combined from similar events): ';

/** At most this much of a message is kept (kubelet's are under 1 KB; anyone may write 1 MB). */
export const MAX_EVENT_MESSAGE = 16 * 1024;
const MAX_EVIDENCE = 2000;

/** Where a fact of an event occurrence came from (the action door decides what each may suggest). */
export type EventFactSource = 'event-involved-object' | 'event-message' | 'node-object' | 'pod-binding';

export interface EventReadContext {
  /** The configured cluster the event was read from (never from the event). */
  readonly cluster: string;
  readonly now: number;
  readonly trustedSandboxImages?: readonly string[];
}

export type EventRead =
  | {
      readonly kind: 'occurrence';
      readonly occurrence: Occurrence;
      /** The event object's uid: a series and its updates are counted once. */
      readonly uid: string;
      /** How many times the event says it happened (count, or series.count: the creator's word). */
      readonly repeats: number;
      /** What the event names: a pod (and the uid it says the pod has) or a node, to corroborate. */
      readonly about: { readonly kind: 'Pod' | 'Node'; readonly uid?: string };
      readonly truncated: boolean;
    }
  | { readonly kind: 'ignored'; readonly why: 'not-warning' | 'reason' | 'object' | 'unknown' }
  | { readonly kind: 'rejected'; readonly reason: string };

function ms(v: string | Date | null | undefined): number | undefined {
  if (!v) return undefined;
  const t = v instanceof Date ? v.getTime() : Date.parse(v);
  return Number.isFinite(t) && t > 0 ? t : undefined;
}

/** When the event last happened (a series' last observation, else its last or only timestamp). */
export function eventTime(e: KubeEvent, now: number): number {
  return ms(e.series?.lastObservedTime) ?? ms(e.lastTimestamp) ?? ms(e.eventTime) ?? ms(e.firstTimestamp) ?? now;
}

function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ');
}

/** The message read: capped, folded to one line, the correlator's prefix removed. */
export function eventMessage(e: KubeEvent): { message: string; truncated: boolean } {
  const raw = e.message ?? '';
  const truncated = raw.length > MAX_EVENT_MESSAGE;
  const capped = oneLine(truncated ? raw.slice(0, MAX_EVENT_MESSAGE) : raw);
  return {
    message: capped.startsWith(COMBINED_PREFIX) ? capped.slice(COMBINED_PREFIX.length) : capped,
    truncated,
  };
}

/** Which object the event is about, or why it cannot say (a Pod named in another namespace). */
function subject(
  e: KubeEvent,
): { kind: 'Pod' | 'Node'; namespace?: string; name: string } | { reject: string } | undefined {
  const o = e.involvedObject;
  const name = o?.name ?? '';
  if (o?.kind === 'Node' && name) return { kind: 'Node', name };
  if (o?.kind !== 'Pod' || !name) return undefined;
  const namespace = e.metadata.namespace ?? '';
  // The API server refuses such an event on create (ValidateEventCreate); one read anyway is forged or corrupt.
  if ((o.namespace ?? '') !== namespace)
    return { reject: `event in namespace ${namespace} names pod ${o.namespace ?? ''}/${name} of another namespace` };
  return { kind: 'Pod', namespace, name };
}

/**
 * One event as an occurrence, or why not: tenant rank (anyone may create one, with any host). The pod (or
 * node) comes from `involvedObject`, never from the message or the event's `source.host` /
 * `reportingInstance`; the message may name an image (as a log line does) and decides the class.
 */
export function readKubeEvent(raw: unknown, ctx: EventReadContext): EventRead {
  const parsed = kubeEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { kind: 'rejected', reason: `event field ${issue?.path.join('.')}: ${issue?.message ?? 'invalid'}` };
  }
  const e = parsed.data;
  if (e.type !== 'Warning') return { kind: 'ignored', why: 'not-warning' };
  if (!(EVENT_REASONS as readonly string[]).includes(e.reason ?? '')) return { kind: 'ignored', why: 'reason' };
  const about = subject(e);
  if (!about) return { kind: 'ignored', why: 'object' };
  if ('reject' in about) return { kind: 'rejected', reason: about.reject };
  if (!e.metadata.uid) return { kind: 'rejected', reason: 'event has no metadata.uid' };
  const { message, truncated } = eventMessage(e);
  const c = classifyMessage(message);
  if (c.class === 'unknown') return { kind: 'ignored', why: 'unknown' };
  const { entities, factSources } = eventEntities(about, message);
  const trusted = trustedSandboxClass(
    c.class,
    c.cause ?? c.class,
    entities.sandboxImage ?? entities.image,
    ctx.trustedSandboxImages,
  );
  const where = about.kind === 'Pod' ? `pod ${about.namespace}/${about.name}` : `node ${about.name}`;
  return {
    kind: 'occurrence',
    uid: e.metadata.uid,
    repeats: Math.max(1, e.series?.count ?? e.count ?? 1),
    truncated,
    about: { kind: about.kind, ...(e.involvedObject?.uid ? { uid: e.involvedObject.uid } : {}) },
    occurrence: {
      ...trusted,
      kind: 'failure',
      signature: c.signature,
      cluster: ctx.cluster,
      entities,
      at: eventTime(e, ctx.now),
      evidence: `[kubernetes event] ${e.reason} ${where}: ${message}`.slice(0, MAX_EVIDENCE),
      signal: 'kubernetes-events',
      factSources,
      // Anyone who may create Events in the namespace wrote it: tenant rank until the pod or node corroborates it.
      rank: 'tenant',
      tenantNamespace: e.metadata.namespace ?? '-',
    },
  };
}

function eventEntities(
  about: { kind: 'Pod' | 'Node'; namespace?: string; name: string },
  message: string,
): { entities: Entities; factSources: Partial<Record<keyof Entities, EventFactSource>> } {
  // Images, registry, subnet and error code from the text (as on the log path); never pod or node.
  const {
    pod: _pod,
    namespace: _namespace,
    node: _node,
    instanceId: _instance,
    ...fromText
  } = extractEntities(message);
  const factSources: Partial<Record<keyof Entities, EventFactSource>> = {};
  for (const k of Object.keys(fromText) as (keyof Entities)[]) factSources[k] = 'event-message';
  const entities: Entities = { ...fromText };
  if (about.kind === 'Node') {
    entities.node = about.name;
    factSources.node = 'event-involved-object';
    return { entities, factSources };
  }
  entities.pod = about.name;
  entities.namespace = about.namespace;
  factSources.pod = 'event-involved-object';
  factSources.namespace = 'event-involved-object';
  // `source.host` / `reportingInstance` are the creator's word: the node is the pod's binding, read from
  // the API when the pod corroborates the event (corroboration.ts), never the event's host.
  return { entities, factSources };
}

/** The instance id of an EC2 node from its Node object's `spec.providerID` (`aws:///<az>/i-…`). */
export function instanceIdOfProviderId(providerId: string | undefined): string | undefined {
  return /^aws:\/\/\/[a-z0-9-]+\/(i-[0-9a-f]{8,17})$/.exec(providerId ?? '')?.[1];
}
