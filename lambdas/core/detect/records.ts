/**
 * Input formats the classifier reads, reduced to one message plus what the envelope says about
 * where it came from. Pure and total: never throws; malformed input is reported in `error`.
 */

export type RecordFormat =
  | 'cloudtrail'
  | 'container-insights'
  | 'ipamd-json'
  | 'json'
  | 'kubectl-describe'
  | 'klog'
  | 'containerd-logfmt'
  | 'opentelemetry'
  | 'raw';

export interface ParsedRecord {
  readonly format: RecordFormat;
  /** The text to classify, with escaped quotes unescaped. */
  readonly message: string;
  /** Severity when the format carries one (klog I/W/E/F, logfmt/zap level). */
  readonly level?: string;
  /** Host / node name from the envelope or the journal prefix. */
  readonly node?: string;
  readonly instanceId?: string;
  /** Systemd unit or program (kubelet, containerd, aws-node ...). */
  readonly source?: string;
  /** kubectl describe event reason (FailedCreatePodSandBox, Failed, BackOff ...). */
  readonly reason?: string;
  /**
   * A Container Insights dataplane record's journal message as read on its own (its format and text):
   * the classifier reads it as it reads the same journal line outside the envelope.
   */
  readonly journal?: { readonly format: RecordFormat; readonly text: string };
  /** Set when the record could not be read. */
  readonly error?: string;
}

/** Records longer than this are truncated before classification (CloudWatch's own event limit is 256 KB). */
export const MAX_RECORD_LENGTH = 256 * 1024;

/** A journal line: time, host name (letters, digits, dots, dashes only), program[pid]: message. */
const JOURNAL =
  /^(?:[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?) ([\w.-]+) ([\w.@-]+?)(?:\[\d+\])?: (.*)$/s;
/**
 * What `kubectl logs` puts before a container's line: `--prefix` ([pod/<pod>/<container>]) and
 * `--timestamps` (RFC 3339); what `aws logs tail` puts before a CloudWatch Logs event: its time and log
 * stream name. A JSON line after them is read as JSON.
 */
const KUBECTL_LOGS =
  /^(?:\[pod\/[\w.-]+\/[\w.-]+\] )?(?:\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}) (?:[\w./$[\]-]+ )?)?(?=\{")/;
/**
 * A line of a container log file as the kubelet's CRI runtime writes it (/var/log/containers/*.log,
 * tailed by agents that do not parse it): RFC 3339 time, stream, P(artial)/F(ull) tag, then the line.
 */
const CRI_LOG_FILE = /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2}) (?:stdout|stderr) [FP] /;
const KLOG = /^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] (.*)$/s;
/** An event row whose first field is kubectl's old From column: "kubelet, <node> <message>". */
const FROM_KUBELET = /^kubelet, ([a-z0-9][a-z0-9.-]{0,252}) +(.*)$/s;
const LOGFMT_LEVEL = /(?:^|\s)level=(\w+)/;
/**
 * A kubectl describe event row: type, reason, age (a duration such as "3m" or "3m (x4 over 5m)", "<unknown>",
 * "<invalid>"; left out in some pastes), from ("kubelet" or old kubectl's "kubelet, <node>"), message.
 */
const DESCRIBE =
  /^\s*(Warning|Normal)\s+([A-Za-z]+)\s+(?:(?:\d\S*(?: \(x\d+ over \S+\))?|<unknown>|<invalid>)\s+)?(\S+(?:, (\S+))?)\s+(.*)$/s;

export function unescapeQuotes(s: string): string {
  return s.includes('\\') ? s.replace(/\\\\"/g, '"').replace(/\\"/g, '"').replace(/\\n/g, ' ') : s;
}

/**
 * The value of the first `key="…"` at the start of `body` or after whitespace, escapes kept. One pass
 * (indexOf plus a scan to the closing quote), so an unterminated quote costs O(line), never O(line²).
 */
export function quotedValue(body: string, key: string): string | undefined {
  const needle = `${key}="`;
  let i = body.indexOf(needle);
  while (i > 0 && !/\s/.test(body[i - 1])) i = body.indexOf(needle, i + 1);
  if (i < 0) return undefined;
  const start = i + needle.length;
  for (let j = start; j < body.length; j++) {
    if (body[j] === '\\') j++;
    else if (body[j] === '"') return body.slice(start, j);
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * A structured JSON record's message with its error field: zap (`error`) and kubelet's JSON logging
 * format (`err`) keep the cause out of `msg` ("CreatePodSandbox for pod failed" + err="rpc error: …"),
 * joined like logfmt's msg and error.
 */
function withError(message: string, o: Record<string, unknown>): string {
  const err = str(o.err) ?? str(o.error);
  return err === undefined ? message : `${message}: ${err}`;
}

/**
 * A logfmt line's image reference field joined to its message when the message does not name it: Bottlerocket's
 * host-ctr and the ECR resolver log the image they pull as `ref="…"` / `img="…"` beside a msg and error that do not
 * ("Failed while calling BatchGetImage" error="NoCredentialProviders: …" ref="…/eks/pause:3.9"), and which image
 * failed (the node's sandbox image or another) decides the class.
 */
function withReference(message: string, body: string): string {
  const ref = quotedValue(body, 'ref') ?? quotedValue(body, 'img');
  return ref === undefined || message.includes(ref) ? message : `${message} (ref ${ref})`;
}

function parseText(text: string, depth = 0): ParsedRecord {
  let node: string | undefined;
  let source: string | undefined;
  let body = text;
  const j = JOURNAL.exec(body);
  if (j) {
    node = j[1];
    source = j[2];
    body = j[3];
  }
  const from = node ? null : FROM_KUBELET.exec(body);
  if (from) {
    node = from[1];
    source = 'kubelet';
    body = from[2];
  }
  // kubelet's JSON logging (and any JSON program) behind a journal prefix or as a dataplane message.
  const json = depth === 0 && body.startsWith('{"') ? parseRecord(body, 1) : undefined;
  if (json && !json.error) return { ...json, node: node ?? json.node, source: source ?? json.source };
  const k = KLOG.exec(body);
  if (k) return { format: 'klog', level: k[1], message: unescapeQuotes(k[2]), node, source };
  const msg = quotedValue(body, 'msg');
  if (msg !== undefined && LOGFMT_LEVEL.test(body)) {
    const err = quotedValue(body, 'error') ?? quotedValue(body, 'err');
    const message = unescapeQuotes(withReference(err !== undefined ? `${msg}: ${err}` : msg, body));
    return { format: 'containerd-logfmt', level: LOGFMT_LEVEL.exec(body)?.[1], message, node, source };
  }
  const d = DESCRIBE.exec(body);
  if (d) {
    // Old kubectl shows "kubelet, <node>" in the From column.
    return {
      format: 'kubectl-describe',
      level: d[1],
      reason: d[2],
      source: 'kubelet',
      node: d[4] ?? node,
      message: unescapeQuotes(d[5]),
    };
  }
  return { format: 'raw', message: unescapeQuotes(body), node, source };
}

/**
 * Container Insights container record: a container's log line as Fluent Bit's tail input reads it, `{"log", "stream",
 * "time", "_p"}` after its `cri` parser, with the `kubernetes` filter's metadata in the application group and without
 * it in the dataplane group, where aws-node and kube-proxy are tailed with the `aws` filter only (`az`,
 * `ec2_instance_id`): the add-on's Fluent Bit configuration, aws-observability/helm-charts
 * charts/amazon-cloudwatch-observability/values.yaml at 71a298ffdebe9d4e13ac709d24398062a2afe8ca. The node is
 * `kubernetes.host`; the `log` line itself may be an ipamd zap JSON record, or still carry the CRI file prefix where
 * no parser took it off (https://github.com/fluent/fluent-bit/issues/5656).
 */
function parseContainerRecord(o: Record<string, unknown>, k8s: Record<string, unknown>, depth: number): ParsedRecord {
  const log = containerLog(o);
  const inner = depth === 0 && log.trimStart().startsWith('{') ? parseRecord(log, 1) : parseText(log.trim(), depth);
  // Node and instance only from the envelope the agent wrote: the container's line is its owner's text.
  return {
    ...inner,
    format: 'container-insights',
    node: str(k8s.host) ?? str(o.hostname),
    instanceId: str(o.ec2_instance_id),
    source: str(k8s.container_name) ?? inner.source,
  };
}

function containerLog(o: Record<string, unknown>): string {
  const log = str(o.log) ?? str(o.message) ?? '';
  return log.slice(CRI_LOG_FILE.exec(log)?.[0].length ?? 0);
}

/**
 * An OpenTelemetry attribute map as an exporter writes it: the awscloudwatchlogs exporter's plain map
 * (`{"k8s.pod.name": "…"}`), or OTLP/JSON's `{"attributes": [{"key", "value": {"stringValue"}}]}`.
 */
function otelAttributes(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const o = v as Record<string, unknown>;
  if (!Array.isArray(o.attributes)) return o;
  const out: Record<string, unknown> = {};
  for (const kv of o.attributes as unknown[]) {
    if (typeof kv !== 'object' || kv === null) continue;
    const { key, value } = kv as { key?: unknown; value?: unknown };
    if (typeof key === 'string') out[key] = otelValue(value);
  }
  return out;
}

/** An OTLP/JSON AnyValue's string (`{"stringValue": "…"}`), or the value itself when it is not wrapped. */
function otelValue(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const o = v as Record<string, unknown>;
  return 'stringValue' in o ? o.stringValue : 'kvlistValue' in o ? o.kvlistValue : v;
}

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;

/**
 * An OpenTelemetry log record as CloudWatch Logs holds it: the awscloudwatchlogs exporter's event (`body`,
 * `severity_text`, `attributes`, `resource` as maps: opentelemetry-collector-contrib
 * exporter/awscloudwatchlogsexporter/exporter.go, `cwLogBody`), or OTLP/JSON's record (`body.stringValue`, `resource`
 * and `attributes` as key/value lists: https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CWL_HTTP_Endpoints_OTLP.html).
 * The body is the line the filelog receiver read (a container's line after `container_log_parser`, or a line of
 * /var/log/messages in the add-on's host pipeline); the resource names the node and the container.
 */
function parseOtelRecord(o: Record<string, unknown>, depth: number): ParsedRecord {
  const text = otelBodyText(o);
  const inner = depth === 0 && text.trimStart().startsWith('{') ? parseRecord(text, 1) : parseText(text.trim(), depth);
  const resource = otelAttributes(o.resource);
  const hostId = str(resource['host.id']);
  return {
    ...inner,
    format: 'opentelemetry',
    level: inner.level ?? str(o.severity_text) ?? str(o.severityText),
    // Node and instance only from the record's resource (the collector's), never from the body's text.
    node: str(resource['k8s.node.name']),
    instanceId: hostId && INSTANCE_ID.test(hostId) ? hostId : undefined,
    source: str(resource['k8s.container.name']) ?? inner.source,
  };
}

/** The record's body as text: a string body as it is, a structured body as JSON. */
function otelBodyText(o: Record<string, unknown>): string {
  const body = otelValue(o.body);
  return typeof body === 'string' ? body : (JSON.stringify(body ?? '') ?? '');
}

/** The awscloudwatchlogs exporter's fields (snake case) and OTLP/JSON's (camel case), besides `body`. */
const OTEL_FIELDS = ['resource', 'severity_text', 'severity_number', 'severityText', 'severityNumber', 'timeUnixNano'];

function isOtelRecord(o: Record<string, unknown>): boolean {
  return 'body' in o && OTEL_FIELDS.some((k) => k in o);
}

/**
 * A CloudTrail record: a trail's event as CloudWatch Logs holds it, or the `detail` of EventBridge's "AWS API
 * Call via CloudTrail" event. Undefined for any other object.
 */
function cloudTrailRecord(o: Record<string, unknown>): Record<string, unknown> | undefined {
  if (str(o.eventSource) !== undefined && str(o.eventName) !== undefined) return o;
  const d = o.detail;
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return undefined;
  const detail = d as Record<string, unknown>;
  return str(detail.eventSource) !== undefined && str(detail.eventName) !== undefined ? detail : undefined;
}

/**
 * The call and its error, joined as the reader joins pieces (": "): `ec2.amazonaws.com: AssignPrivateIpAddresses:
 * Client.InsufficientFreeAddressesInSubnet: <errorMessage>`. A call that succeeded says only what was called.
 */
function readCloudTrail(o: Record<string, unknown>): ParsedRecord {
  const parts = [o.eventSource, o.eventName, o.errorCode, o.errorMessage].map(str).filter((p) => p !== undefined);
  return {
    format: 'cloudtrail',
    message: parts.join(': '),
    level: str(o.errorCode) === undefined ? undefined : 'error',
    source: str(o.eventSource),
  };
}

/**
 * The Kubernetes namespace a record's envelope names (Fluent Bit's `kubernetes.namespace_name`, the
 * OpenTelemetry resource's `k8s.namespace.name`): the log agent's metadata, not the container's text.
 * Undefined for a record without one (a journal line, a plain text line).
 */
export function envelopeNamespace(input: string): string | undefined {
  const shape = shapeOf(input);
  if (shape.kind === 'container') return str(shape.k8s.namespace_name);
  if (shape.kind === 'otel') return str(otelAttributes(shape.o.resource)['k8s.namespace.name']);
  return undefined;
}

/** What a record is, decided once for both the reader and {@link recordError}. */
type Shape =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'error'; readonly format: RecordFormat; readonly message: string; readonly error: string }
  | { readonly kind: 'container'; readonly o: Record<string, unknown>; readonly k8s: Record<string, unknown> }
  | { readonly kind: 'otel'; readonly o: Record<string, unknown> }
  | { readonly kind: 'dataplane' | 'ipamd' | 'cloudtrail'; readonly o: Record<string, unknown> }
  | { readonly kind: 'generic'; readonly message: string; readonly o: Record<string, unknown> };

function shapeOf(input: string): Shape {
  const raw = input.length > MAX_RECORD_LENGTH ? input.slice(0, MAX_RECORD_LENGTH) : input;
  const trimmed = raw.trim();
  const line = trimmed.slice(CRI_LOG_FILE.exec(trimmed)?.[0].length ?? 0);
  const text = line.slice(KUBECTL_LOGS.exec(line)?.[0].length ?? 0);
  if (text.length === 0) return { kind: 'error', format: 'raw', message: '', error: 'empty record' };
  // A JSON object starts with `{"` or `{}`; anything else in braces (a pasted Python dict) is text.
  if (!text.startsWith('{') || !/^\{\s*["}]/.test(text)) return { kind: 'text', text };
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    return { kind: 'error', format: 'json', message: text, error: `invalid JSON: ${(e as Error).message}` };
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    return { kind: 'error', format: 'json', message: text, error: 'JSON record is not an object' };
  const o = obj as Record<string, unknown>;
  const k8s = o.kubernetes;
  if (typeof k8s === 'object' && k8s !== null && (str(o.log) ?? str(o.message)) !== undefined)
    return { kind: 'container', o, k8s: k8s as Record<string, unknown> };
  // The dataplane group's aws-node and kube-proxy lines: Fluent Bit's cri parser and aws filter, no kubernetes filter.
  if (str(o.log) !== undefined && (o.stream !== undefined || o.ec2_instance_id !== undefined))
    return { kind: 'container', o, k8s: {} };
  if (isOtelRecord(o)) return { kind: 'otel', o };
  // Container Insights dataplane (Fluent Bit): the journal message plus host metadata; the host log group's
  // syslog records name the host and program as host and ident.
  if (
    str(o.message) !== undefined &&
    (o.systemd_unit !== undefined ||
      o.hostname !== undefined ||
      o.ec2_instance_id !== undefined ||
      (o.host !== undefined && o.ident !== undefined))
  )
    return { kind: 'dataplane', o };
  // ipamd / aws-cni plugin zap JSON.
  if (str(o.msg) !== undefined && o.level !== undefined && o.ts !== undefined) return { kind: 'ipamd', o };
  const trail = cloudTrailRecord(o);
  if (trail) return { kind: 'cloudtrail', o: trail };
  const message = str(o.message) ?? str(o.msg) ?? str(o.log);
  if (message === undefined)
    return { kind: 'error', format: 'json', message: text, error: 'JSON record has no message, msg or log field' };
  return { kind: 'generic', message, o };
}

/** Reads one record: a JSON envelope (Container Insights dataplane, ipamd zap, generic) or a text line. */
export function parseRecord(input: string, depth = 0): ParsedRecord {
  const shape = shapeOf(input);
  switch (shape.kind) {
    case 'text':
      return parseText(shape.text, depth);
    case 'error':
      return { format: shape.format, message: shape.message, error: shape.error };
    case 'container':
      return parseContainerRecord(shape.o, shape.k8s, depth);
    case 'otel':
      return parseOtelRecord(shape.o, depth);
    case 'dataplane': {
      const o = shape.o;
      const text = String(o.message);
      const inner = parseText(text, depth);
      return {
        ...inner,
        format: 'container-insights',
        node: str(o.hostname) ?? str(o.host) ?? inner.node,
        instanceId: str(o.ec2_instance_id),
        // Fluent Bit's systemd input (lower-cased, underscores stripped): the program, else its unit.
        source:
          str(o.syslog_identifier) ?? str(o.ident) ?? str(o.systemd_unit)?.replace(/\.service$/, '') ?? inner.source,
        journal: { format: inner.format, text },
      };
    }
    case 'cloudtrail':
      return readCloudTrail(shape.o);
    case 'ipamd':
      return {
        format: 'ipamd-json',
        level: String(shape.o.level),
        message: unescapeQuotes(withError(String(shape.o.msg), shape.o)),
        source: str(shape.o.caller) ?? 'ipamd',
      };
    case 'generic': {
      const inner = parseText(withError(shape.message, shape.o), depth);
      return { ...inner, format: inner.format === 'raw' ? 'json' : inner.format };
    }
  }
}

/**
 * Why {@link parseRecord} cannot read a record (its `error` and `format`), without extracting the
 * message: for callers that already know no signature can match the record and only need to know
 * whether to report it as unreadable.
 */
export function recordError(input: string, depth = 0): { format: RecordFormat; error: string } | undefined {
  const shape = shapeOf(input);
  if (shape.kind === 'error') return { format: shape.format, error: shape.error };
  if ((shape.kind !== 'container' && shape.kind !== 'otel') || depth !== 0) return undefined;
  const log = shape.kind === 'container' ? containerLog(shape.o) : otelBodyText(shape.o);
  if (!log.trimStart().startsWith('{')) return undefined;
  const inner = recordError(log, 1);
  return inner && { format: shape.kind === 'container' ? 'container-insights' : 'opentelemetry', error: inner.error };
}
