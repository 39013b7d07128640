import { outboundFields } from '../../core/text/outbound.js';
import { clusterEvents, type WriteBackTargets } from '../../core/voices/cluster-events.js';
import { DEFAULT_SERIES_LIMITS, type SeriesLimits } from '../../core/voices/event-series.js';
import { runNotice } from '../../core/voices/stored-notice.js';
import { type EventsClient, type WriteBackResult, writeBack } from './event-writer.js';

/**
 * The write-back as the action door runs it: the run's summary (read from the evidence bucket, the
 * workflow's own record) made into the incident's notice, the notice into events on the objects the
 * workflow resolved (its node, the stuck pods the Kubernetes inspection listed: API objects, never
 * names from a log line), written through the events-only client.
 */

export interface ReportEventsRequest {
  readonly incidentId: string;
  readonly class: string;
  readonly cluster: string;
  /** The execution writing (its state machine names the reporting instance). */
  readonly execution: string;
  /** `s3://bucket/incidents/….json`: the run's summary, linked from every event. */
  readonly summaryUri: string;
  readonly targets: WriteBackTargets;
}

export interface ReportEventsDeps {
  readonly events: EventsClient;
  /** The run's summary JSON, read from the evidence bucket (incidents/ only). */
  readonly summary: (uri: string) => Promise<unknown>;
  readonly now: () => number;
  readonly limits?: SeriesLimits;
}

/**
 * The events' reporting instance: the deployment, named by its state machine (an execution ARN is
 * `arn:…:execution:<state machine>:<name>`), within the API's 128 bytes.
 */
export function reportingInstanceOf(execution: string): string {
  const machine = /:execution:([A-Za-z0-9_-]{1,80}):/.exec(execution)?.[1];
  return machine ? `pod-doctor-${machine}` : 'pod-doctor';
}

/** Writes the incident's events; what was not written is in the result with why. */
export async function reportEvents(r: ReportEventsRequest, deps: ReportEventsDeps): Promise<WriteBackResult> {
  const at = new Date(deps.now());
  const summary = await deps.summary(r.summaryUri);
  const outcome =
    summary && typeof summary === 'object' && 'outcome' in summary && typeof summary.outcome === 'string'
      ? summary.outcome
      : '';
  const row = {
    incidentId: r.incidentId,
    class: r.class,
    cluster: r.cluster,
    outcome: outcome || 'reported',
    executionArn: r.execution,
    summaryJson: r.summaryUri,
    closedAt: at.getTime(),
  };
  const notice = outboundFields(runNotice(row, summary ?? {}, at));
  const events = clusterEvents(notice, r.targets, reportingInstanceOf(r.execution), at);
  return writeBack(deps.events, r.incidentId, events, at, deps.limits ?? DEFAULT_SERIES_LIMITS);
}
