import { clip, firstOf, htmlText, plainText } from './channel-text.js';
import { dedupKey, type IncidentNotice, PAGING_ACTION } from './notice.js';

/**
 * A notice as the request bodies of the pagers: PagerDuty Events API v2 and the Opsgenie Alert API.
 * The credentials are not here: the EventBridge connection adds them (PagerDuty's `routing_key` as a
 * secret body parameter, Opsgenie's `Authorization: GenieKey …` header), so they never travel in an event.
 */

/** PagerDuty Events API v2 `POST /v2/enqueue` body, without `routing_key`:
 * https://github.com/PagerDuty/api-schema/blob/main/reference/events-v2/openapiv3.json and the
 * documented limits (summary 1,024, dedup_key 255 characters, payloads 512 KB):
 * https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ */
export interface PagerDutyEvent {
  readonly event_action: 'trigger' | 'resolve';
  readonly dedup_key: string;
  readonly payload?: {
    readonly summary: string;
    readonly source: string;
    readonly severity: 'critical' | 'error' | 'warning' | 'info';
    readonly timestamp: string;
    readonly component: string;
    readonly group: string;
    readonly class: string;
    readonly custom_details: Readonly<Record<string, unknown>>;
  };
  readonly client?: string;
  readonly client_url?: string;
  readonly links?: readonly { readonly href: string; readonly text: string }[];
}

/** Opsgenie `POST /v2/alerts` body (CreateAlertPayload) and the documented field limits:
 * https://github.com/opsgenie/opsgenie-oas/blob/master/definitions/alert.yaml,
 * https://docs.opsgenie.com/docs/alerts-and-alert-fields (message 130, alias 512, description 15,000,
 * 20 tags of 50, entity 512, source 100 characters). */
export interface OpsgenieCreate {
  readonly message: string;
  readonly alias: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly details: Readonly<Record<string, string>>;
  readonly entity: string;
  readonly source: string;
  readonly priority: 'P1' | 'P2' | 'P3' | 'P4' | 'P5';
}

/** Opsgenie `POST /v2/alerts/{alias}/close?identifierType=alias` body (CloseAlertPayload). */
export interface OpsgenieClose {
  readonly source: string;
  readonly user: string;
  readonly note: string;
}

/**
 * The detail of the `pod-doctor incident notice` event the paging rules route: the action, the key,
 * and each pager's ready body (the rule target sends `$.detail.pagerduty` etc. as it is).
 */
export interface PagingDetail {
  readonly action: 'trigger' | 'resolve';
  readonly kind: IncidentNotice['kind'];
  readonly incidentId: string;
  readonly dedupKey: string;
  readonly pagerduty: PagerDutyEvent;
  readonly opsgenie: { readonly create: OpsgenieCreate; readonly close: OpsgenieClose };
}

/** Each list in a pager's details: a few lines, each cut; the event stays far under EventBridge's 256 KB. */
const DETAIL_LINES = 5;
const DETAIL_LINE = 500;

const lines = (items: readonly string[]) =>
  firstOf(items, DETAIL_LINES, (n) => `(${n} more in the summary)`).map((l) => plainText(l, DETAIL_LINE));

const httpsLinks = (n: IncidentNotice) =>
  n.links.filter((l) => /^https:\/\//.test(l.url)).map((l) => ({ href: l.url, text: l.label }));

function pagerDuty(n: IncidentNotice, action: 'trigger' | 'resolve'): PagerDutyEvent {
  const key = dedupKey(n.incidentId);
  if (action === 'resolve') return { event_action: 'resolve', dedup_key: key };
  const console = httpsLinks(n)[0]?.href;
  return {
    event_action: 'trigger',
    dedup_key: key,
    payload: {
      summary: plainText(`pod-doctor: ${n.class} on ${n.cluster}/${n.where}: ${n.headline}`, 1_024),
      source: plainText(`${n.cluster}/${n.where}`, 255),
      severity: n.kind === 'needs-human' ? 'error' : 'warning',
      timestamp: n.at,
      // PagerDuty's fields as its docs define them: the part of the source that failed, the cluster
      // as the group, and the type of the event: the failure class (what the notice means is `kind`).
      component: plainText(n.where, 255),
      group: plainText(n.cluster, 255),
      class: n.class,
      custom_details: {
        incident: n.incidentId,
        kind: n.kind,
        ...(n.ask ? { ask: plainText(n.ask, DETAIL_LINE) } : {}),
        cause: plainText(n.cause, DETAIL_LINE),
        evidence: lines(n.evidence),
        checks: lines(n.findings),
        actions: lines(n.actions),
        next_steps: lines(n.nextSteps),
      },
    },
    client: 'pod-doctor',
    ...(console ? { client_url: console } : {}),
    links: httpsLinks(n),
  };
}

function opsgenieCreate(n: IncidentNotice): OpsgenieCreate {
  const body = [
    ...(n.ask ? [`Asks: ${htmlText(n.ask, DETAIL_LINE)}`] : []),
    `Cause: ${htmlText(n.cause, DETAIL_LINE)}`,
    `Outcome: ${htmlText(n.headline, DETAIL_LINE)}`,
    ...lines(n.evidence).map((l) => `Evidence: ${htmlText(l, DETAIL_LINE)}`),
    ...lines(n.findings).map((l) => `Check: ${htmlText(l, DETAIL_LINE)}`),
    ...lines(n.actions).map((l) => `Action: ${htmlText(l, DETAIL_LINE)}`),
    ...lines(n.nextSteps).map((l) => `Next: ${htmlText(l, DETAIL_LINE)}`),
    ...httpsLinks(n).map((l) => `${l.text}: ${htmlText(l.href, 1_000)}`),
  ].join('\n');
  return {
    message: htmlText(`pod-doctor: ${n.class} on ${n.cluster}: ${n.headline}`, 130),
    alias: dedupKey(n.incidentId),
    description: clip(body, 15_000),
    tags: ['pod-doctor', n.class, n.kind, n.cluster].map((t) => clip(t, 50)),
    details: {
      incident: n.incidentId,
      class: n.class,
      cluster: clip(n.cluster, 200),
      where: clip(n.where, 500),
      kind: n.kind,
    },
    entity: htmlText(`${n.cluster}/${n.where}`, 512),
    source: 'pod-doctor',
    priority: n.kind === 'needs-human' ? 'P2' : 'P3',
  };
}

/** The paging detail of a notice, or undefined when the notice pages nobody (informational). */
export function pagingDetail(n: IncidentNotice): PagingDetail | undefined {
  const action = PAGING_ACTION[n.kind];
  if (!action) return undefined;
  return {
    action,
    kind: n.kind,
    incidentId: n.incidentId,
    dedupKey: dedupKey(n.incidentId),
    pagerduty: pagerDuty(n, action),
    opsgenie: {
      create: opsgenieCreate(n),
      close: { source: 'pod-doctor', user: 'pod-doctor', note: htmlText(`${n.kind}: ${n.headline}`, 1_000) },
    },
  };
}
