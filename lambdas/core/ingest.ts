import { CloudWatchLogsSchema } from '@aws-lambda-powertools/parser/schemas/cloudwatch';
import { classify } from './classifier.js';
import { classifyCloudTrail, isCloudTrailEvent } from './cloudtrail.js';
import type { Occurrence } from './incidents.js';

/** A record pod-doctor could not read. Kept as evidence, counted, never dropped. */
export interface Reject {
  readonly reason: string;
  /** The record as received (truncated). */
  readonly record: string;
  readonly logGroup?: string;
  readonly logStream?: string;
}

export interface IngestStats {
  received: number;
  classified: number;
  unknown: number;
  rejected: number;
  controlMessages: number;
  byClass: Record<string, number>;
}

export interface ReadResult {
  readonly occurrences: Occurrence[];
  readonly rejects: Reject[];
  readonly stats: IngestStats;
}

export interface IngestConfig {
  /** Log group name → cluster name (from the configuration). */
  readonly logGroupClusters: Readonly<Record<string, string>>;
  /** Cluster name used for account-level CloudTrail events. */
  readonly accountScope: string;
}

const MAX_REJECT_CHARS = 16 * 1024;
const CI_LOG_GROUP = /^\/aws\/containerinsights\/([^/]+)\//;

function clusterOf(logGroup: string, config: IngestConfig): string {
  return config.logGroupClusters[logGroup] ?? CI_LOG_GROUP.exec(logGroup)?.[1] ?? logGroup;
}

function emptyStats(): IngestStats {
  return { received: 0, classified: 0, unknown: 0, rejected: 0, controlMessages: 0, byClass: {} };
}

function truncate(s: string): string {
  return s.length > MAX_REJECT_CHARS
    ? `${s.slice(0, MAX_REJECT_CHARS)}…[truncated ${s.length - MAX_REJECT_CHARS} chars]`
    : s;
}

/**
 * Reads a Lambda event (CloudWatch Logs subscription payload or EventBridge CloudTrail event) into
 * classified occurrences. Total: any input, however broken, ends up in occurrences, in unknown
 * counts or in rejects.
 */
export function readEvent(event: unknown, config: IngestConfig, now: number): ReadResult {
  const stats = emptyStats();
  const occurrences: Occurrence[] = [];
  const rejects: Reject[] = [];
  const reject = (reason: string, record: string, where: { logGroup?: string; logStream?: string } = {}) => {
    stats.rejected++;
    rejects.push({ reason, record: truncate(record), ...where });
  };

  if (isCloudTrailEvent(event)) {
    stats.received++;
    const c = classifyCloudTrail(event);
    if (c.kind === 'ignored' || c.class === 'unknown') {
      stats.unknown++;
    } else {
      stats.classified++;
      stats.byClass[c.class] = (stats.byClass[c.class] ?? 0) + 1;
      const at = Date.parse(event.detail.eventTime ?? event.time ?? '') || now;
      occurrences.push({
        class: c.class,
        kind: c.kind,
        cause: c.cause ?? c.class,
        signature: `cloudtrail.${event.detail.eventName}`,
        cluster: config.accountScope,
        entities: c.entities,
        at,
        evidence: `${event.detail.eventName}${event.detail.errorCode ? ` ${event.detail.errorCode}` : ''} by ${c.actor ?? 'unknown'}: ${c.cause}`,
      });
    }
    return { occurrences, rejects, stats };
  }

  const parsed = CloudWatchLogsSchema.safeParse(event);
  if (!parsed.success) {
    stats.received++;
    let text: string;
    try {
      text = JSON.stringify(event) ?? String(event);
    } catch {
      text = String(event);
    }
    reject(
      `not a CloudWatch Logs subscription payload or CloudTrail event: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      text,
    );
    return { occurrences, rejects, stats };
  }
  const batch = parsed.data.awslogs.data;
  if (batch.messageType === 'CONTROL_MESSAGE') {
    stats.controlMessages++;
    return { occurrences, rejects, stats };
  }
  const cluster = clusterOf(batch.logGroup, config);
  for (const le of batch.logEvents) {
    stats.received++;
    const c = classify(le.message);
    if (c.error) {
      reject(c.error, le.message, { logGroup: batch.logGroup, logStream: batch.logStream });
      continue;
    }
    if (c.class === 'unknown') {
      stats.unknown++;
      continue;
    }
    stats.classified++;
    stats.byClass[c.class] = (stats.byClass[c.class] ?? 0) + 1;
    occurrences.push({
      class: c.class,
      kind: 'failure',
      cause: c.cause ?? c.class,
      signature: c.signature,
      cluster,
      entities: c.entities,
      at: Number.isFinite(le.timestamp) ? le.timestamp : now,
      // What a human reads: the envelope's message, not the Fluent Bit JSON around it.
      evidence: c.message,
    });
  }
  return { occurrences, rejects, stats };
}
