import { type CloudTrailClient, DescribeTrailsCommand, GetTrailStatusCommand } from '@aws-sdk/client-cloudtrail';
import {
  type CloudWatchLogsClient,
  FilterLogEventsCommand,
  type FilterLogEventsCommandOutput,
} from '@aws-sdk/client-cloudwatch-logs';
import { applicationLogGroups, dataplaneLogGroup } from '../../core/contract/signals.js';
import { logReading, type SignalReading, trailReading } from '../../core/incident/signal-health.js';

const DAY_MS = 24 * 3_600_000;
/** FilterLogEvents searches a time range in slices; it may answer empty pages before a match. */
const MAX_FILTER_PAGES = 10;

/**
 * Whether `group` exists (FilterLogEvents answers ResourceNotFoundException for a group that does
 * not) and when, in the last 24 h, it carried a line matching `pattern`.
 */
async function lastMatch(
  logs: CloudWatchLogsClient,
  group: string,
  pattern: string,
  now: number,
): Promise<{ exists: boolean; lastMatchAt?: number; searched: boolean }> {
  let token: string | undefined;
  for (let page = 0; page < MAX_FILTER_PAGES; page += 1) {
    let r: FilterLogEventsCommandOutput;
    try {
      r = await logs.send(
        new FilterLogEventsCommand({
          logGroupName: group,
          filterPattern: pattern,
          startTime: now - DAY_MS,
          endTime: now,
          limit: 1,
          nextToken: token,
        }),
      );
    } catch (e) {
      if ((e as Error).name === 'ResourceNotFoundException') return { exists: false, searched: true };
      throw e;
    }
    const at = r.events?.[0]?.timestamp;
    if (at !== undefined) return { exists: true, lastMatchAt: at, searched: true };
    token = r.nextToken;
    if (!token) return { exists: true, searched: true };
  }
  return { exists: true, searched: false };
}

/**
 * `dataplane-logs`: a kubelet line in the dataplane group in the last 24 h (the unit or program name
 * is in every record Fluent Bit ships from the kubelet's journal).
 */
export async function dataplaneSignal(
  logs: CloudWatchLogsClient,
  cluster: string,
  now: number,
): Promise<SignalReading> {
  return logSignal(logs, 'dataplane-logs', dataplaneLogGroup(cluster), '"kubelet"', 'kubelet', now);
}

/**
 * `application-logs`: an aws-node line (its pod and container names are in every record) in 24 h, in
 * Fluent Bit's application group or the OpenTelemetry mode's: the first that exists is read.
 */
export async function applicationSignal(
  logs: CloudWatchLogsClient,
  cluster: string,
  now: number,
): Promise<SignalReading> {
  let reading: SignalReading | undefined;
  for (const group of applicationLogGroups(cluster)) {
    reading = await logSignal(logs, 'application-logs', group, '"aws-node"', 'aws-node', now);
    if (reading.status !== 'absent') return reading;
  }
  return {
    signal: 'application-logs',
    status: 'absent',
    detail: `neither ${applicationLogGroups(cluster).join(' nor ')} exists`,
  };
}

async function logSignal(
  logs: CloudWatchLogsClient,
  signal: 'dataplane-logs' | 'application-logs',
  group: string,
  pattern: string,
  what: string,
  now: number,
): Promise<SignalReading> {
  const m = await lastMatch(logs, group, pattern, now);
  if (!m.searched)
    return { signal, status: 'unknown', detail: `the search of ${group} did not finish in ${MAX_FILTER_PAGES} pages` };
  return logReading(signal, { group, exists: m.exists, lastMatchAt: m.lastMatchAt, what });
}

/**
 * `cloudtrail`: a trail that covers the Region (multi-Region or homed there) and is logging
 * (EventBridge receives "AWS API Call via CloudTrail" events only then). Shadow trails included.
 */
export async function trailSignal(cloudtrail: CloudTrailClient, region: string): Promise<SignalReading> {
  const trails = (await cloudtrail.send(new DescribeTrailsCommand({ includeShadowTrails: true }))).trailList ?? [];
  const covering = trails.filter((t) => t.IsMultiRegionTrail || t.HomeRegion === region);
  for (const t of covering) {
    const status = await cloudtrail.send(new GetTrailStatusCommand({ Name: t.TrailARN ?? t.Name }));
    if (status.IsLogging) return trailReading({ region, covering: [], logging: t.Name ?? t.TrailARN });
  }
  return trailReading({ region, covering: covering.map((t) => t.Name ?? t.TrailARN ?? '?') });
}

/** A reader that cannot read (permissions, throttling) gives `unknown`, never a status it did not see. */
export async function guardedReading(
  signal: SignalReading['signal'],
  read: () => Promise<SignalReading>,
): Promise<SignalReading> {
  try {
    return await read();
  } catch (e) {
    return {
      signal,
      status: 'unknown',
      detail: `could not check: ${(e as Error).name}: ${String((e as Error).message).split('\n')[0]}`.slice(0, 300),
    };
  }
}
