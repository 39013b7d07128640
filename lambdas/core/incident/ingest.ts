import { classifyCloudTrail, isCloudTrailEvent } from '../cloudtrail/cloudtrail.js';
import { cloudTrailEventSchema } from '../cloudtrail/cloudtrail-schema.js';
import { type AccountFacts, scopeCloudTrail } from '../cloudtrail/cloudtrail-scope.js';
import { logGroupSignal, type Signal } from '../contract/signals.js';
import { trustedSandboxClass } from '../contract/trust.js';
import type { Classification } from '../detect/classifier.js';
import { classifyEach, classifyStream } from '../detect/context.js';
import { capValue } from '../detect/entities.js';
import { envelopeNamespace } from '../detect/records.js';
import { MAX_TIMESTAMP, readLogEvent, readSubscription } from '../detect/subscription.js';
import { outboundFields, outboundText } from '../text/outbound.js';
import type { Occurrence } from './incidents.js';
import { logLineRank } from './provenance.js';

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
  /** CloudTrail events classified but outside pod-doctor's scope (another role, a non-endpoint group). */
  outOfScope: number;
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
  /**
   * Sandbox image repositories trusted beyond the EKS pause repositories and localhost/kubernetes/pause.
   * @default []
   */
  readonly trustedSandboxImages?: readonly string[];
  /**
   * Read each line that names no cause again with its neighbours in the batch (context.ts); false reads every line
   * alone (the single-line fast path the context path starts from).
   * @default true
   */
  readonly context?: boolean;
}

const MAX_REJECT_CHARS = 16 * 1024;
const MAX_CAUSE_CHARS = 1000;
/**
 * Container Insights' log groups name their cluster: Fluent Bit's `/aws/containerinsights/<cluster>/…` and the
 * OpenTelemetry mode's `/aws/otel/containerinsights/<cluster>/…` (aws-observability/helm-charts,
 * templates/linux/_otel-container-insights-config.tpl at 71a298ffdebe9d4e13ac709d24398062a2afe8ca).
 */
const CI_LOG_GROUP = /^\/aws\/(?:otel\/)?containerinsights\/([^/]+)\//;

function clusterOf(logGroup: string, config: IngestConfig): string {
  return config.logGroupClusters[logGroup] ?? CI_LOG_GROUP.exec(logGroup)?.[1] ?? logGroup;
}

function emptyStats(): IngestStats {
  return { received: 0, classified: 0, unknown: 0, rejected: 0, controlMessages: 0, outOfScope: 0, byClass: {} };
}

function stringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function truncate(s: string): string {
  return s.length > MAX_REJECT_CHARS
    ? `${s.slice(0, MAX_REJECT_CHARS)}…[truncated ${s.length - MAX_REJECT_CHARS} chars]`
    : s;
}

/** The line's class, a sandbox-image failure only for a trusted pause image ({@link trustedSandboxClass}). */
function trustedClass(c: Classification, config: IngestConfig): Pick<Occurrence, 'class' | 'cause'> {
  const image = c.entities.sandboxImage ?? c.entities.image;
  return trustedSandboxClass(c.class as Occurrence['class'], c.cause ?? c.class, image, config.trustedSandboxImages);
}

/**
 * Reads a Lambda event (CloudWatch Logs subscription payload or EventBridge CloudTrail event) into
 * classified occurrences. Total: any input, however broken, ends up in occurrences, in unknown
 * counts or in rejects; one bad log event never costs the others of its batch. `facts` (looked up by
 * the caller) scope CloudTrail events to the configured clusters' roles, endpoint security groups and
 * nodes; without them every classified CloudTrail event is kept.
 */
export function readEvent(event: unknown, config: IngestConfig, now: number, facts: AccountFacts = {}): ReadResult {
  const stats = emptyStats();
  const occurrences: Occurrence[] = [];
  const rejects: Reject[] = [];
  const reject = (reason: string, record: string, where: { logGroup?: string; logStream?: string } = {}) => {
    stats.rejected++;
    // Redacted whole, then cut: a secret cut in two by the truncation would no longer be recognised.
    rejects.push(outboundFields({ reason, record: truncate(outboundText(record)), ...where }));
  };

  if (isCloudTrailEvent(event)) {
    stats.received++;
    const ct = readCloudTrail(event, config, now, stats, facts);
    if ('reject' in ct) reject(ct.reject, stringify(event));
    else if (ct.occurrence) occurrences.push(ct.occurrence);
    return { occurrences, rejects, stats };
  }

  const read = readSubscription(event);
  if ('error' in read) {
    stats.received++;
    reject(`not a CloudWatch Logs subscription payload or CloudTrail event: ${read.error}`, stringify(event));
    return { occurrences, rejects, stats };
  }
  const batch = read.batch;
  if (batch.messageType === 'CONTROL_MESSAGE') {
    stats.controlMessages++;
    return { occurrences, rejects, stats };
  }
  const cluster = capValue(clusterOf(batch.logGroup, config));
  const signal = logGroupSignal(batch.logGroup);
  const where = { logGroup: batch.logGroup, logStream: batch.logStream };
  const events: { message: string; timestamp: number }[] = [];
  for (const raw of batch.logEvents) {
    stats.received++;
    const le = readLogEvent(raw);
    if ('error' in le) reject(le.error, stringify(raw), where);
    else events.push(le);
  }
  // Most node lines are healthy: the catalogue's pre-filter answers them without reading them. A batch is one log
  // stream's, in order: a line that names no cause is read again with its neighbours (context.ts).
  const stream = events.map((le) => ({ record: le.message, at: le.timestamp }));
  // The one redaction pass: what is classified, joined, kept and shown is the line on one line, secrets out.
  const readings =
    config.context === false ? classifyEach(stream, outboundText) : classifyStream(stream, { prepare: outboundText });
  for (const [i, le] of events.entries()) {
    const { quick, classification: c } = readings[i];
    if (quick?.error) {
      reject(quick.error, le.message, where);
      continue;
    }
    if (quick || !c) {
      stats.unknown++;
      continue;
    }
    if (c.error) {
      reject(c.error, le.message, where);
      continue;
    }
    if (c.class === 'unknown') {
      stats.unknown++;
      continue;
    }
    const o = lineOccurrence(c, config, { cluster, signal, record: le.message, at: le.timestamp });
    stats.classified++;
    stats.byClass[o.class] = (stats.byClass[o.class] ?? 0) + 1;
    occurrences.push(o);
  }
  return { occurrences, rejects, stats };
}

/**
 * A classified log line as an occurrence: its class (a sandbox failure only for a trusted pause image),
 * and its rank by who wrote it (the envelope's namespace, else the group: provenance.ts).
 */
function lineOccurrence(
  c: Classification,
  config: IngestConfig,
  line: { cluster: string; signal: Signal; record: string; at: number },
): Occurrence {
  const namespace = envelopeNamespace(line.record);
  const rank = logLineRank(line.signal, namespace);
  return {
    ...trustedClass(c, config),
    rank,
    ...(rank === 'tenant' ? { tenantNamespace: namespace ?? '-' } : {}),
    kind: 'failure',
    signature: c.signature,
    cluster: line.cluster,
    entities: c.entities,
    at: line.at,
    // What a human reads: the envelope's message, not the Fluent Bit JSON around it.
    evidence: c.message,
    signal: line.signal,
  };
}

/** One EventBridge CloudTrail event: its fields checked against a schema, then classified. */
function readCloudTrail(
  event: unknown,
  config: IngestConfig,
  now: number,
  stats: IngestStats,
  facts: AccountFacts,
): { reject: string } | { occurrence?: Occurrence } {
  const parsed = cloudTrailEventSchema.safeParse(event);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { reject: `CloudTrail event field ${issue?.path.join('.')}: ${issue?.message ?? 'invalid'}` };
  }
  const e = parsed.data;
  const c = classifyCloudTrail(e);
  if (c.kind === 'ignored' || c.class === 'unknown') {
    stats.unknown++;
    return {};
  }
  const scope = scopeCloudTrail(e, c, facts);
  if (!scope.keep) {
    stats.outOfScope++;
    return {};
  }
  stats.classified++;
  stats.byClass[c.class] = (stats.byClass[c.class] ?? 0) + 1;
  const at = Date.parse(e.detail.eventTime ?? e.time ?? '');
  const cause = capValue(outboundText(c.cause ?? c.class), MAX_CAUSE_CHARS);
  return {
    occurrence: outboundFields({
      class: c.class,
      kind: c.kind,
      cause,
      signature: `cloudtrail.${e.detail.eventName}`,
      cluster: capValue(scope.cluster ?? config.accountScope),
      entities: scope.entities,
      at: Number.isFinite(at) && at >= 0 && at <= MAX_TIMESTAMP ? at : now,
      evidence: `${e.detail.eventName}${e.detail.errorCode ? ` ${e.detail.errorCode}` : ''} by ${c.actor ?? 'unknown'}: ${cause}`,
      signal: 'cloudtrail',
      rank: 'aws',
    }),
  };
}
