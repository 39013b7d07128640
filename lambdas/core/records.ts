/**
 * Input formats the classifier reads, reduced to one message plus what the envelope says about
 * where it came from. Pure and total: never throws; malformed input is reported in `error`.
 */

export type RecordFormat =
  | 'container-insights'
  | 'ipamd-json'
  | 'json'
  | 'kubectl-describe'
  | 'klog'
  | 'containerd-logfmt'
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
  /** Set when the record could not be read. */
  readonly error?: string;
}

/** Records longer than this are truncated before classification (CloudWatch's own event limit is 256 KB). */
export const MAX_RECORD_LENGTH = 256 * 1024;

const JOURNAL =
  /^(?:[A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?) (\S+) ([\w.@-]+?)(?:\[\d+\])?: (.*)$/s;
const KLOG = /^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] (.*)$/s;
const LOGFMT_MSG = /(?:^|\s)msg="((?:[^"\\]|\\.)*)"/s;
const LOGFMT_LEVEL = /(?:^|\s)level=(\w+)/;
const LOGFMT_ERR = /(?:^|\s)(?:error|err)="((?:[^"\\]|\\.)*)"/s;
const DESCRIBE =
  /^\s*(Warning|Normal)\s+([A-Za-z]+)\s+(?:\S+(?: \(x\d+ over \S+\))?|<unknown>)\s+(\S+(?:, (\S+))?)\s+(.*)$/s;

export function unescapeQuotes(s: string): string {
  return s.includes('\\') ? s.replace(/\\\\"/g, '"').replace(/\\"/g, '"').replace(/\\n/g, ' ') : s;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function parseText(text: string): ParsedRecord {
  let node: string | undefined;
  let source: string | undefined;
  let body = text;
  const j = JOURNAL.exec(body);
  if (j) {
    node = j[1];
    source = j[2];
    body = j[3];
  }
  const k = KLOG.exec(body);
  if (k) return { format: 'klog', level: k[1], message: unescapeQuotes(k[2]), node, source };
  const msg = LOGFMT_MSG.exec(body);
  if (msg && LOGFMT_LEVEL.test(body)) {
    const err = LOGFMT_ERR.exec(body);
    const message = unescapeQuotes(err ? `${msg[1]}: ${err[1]}` : msg[1]);
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

/** Reads one record: a JSON envelope (Container Insights dataplane, ipamd zap, generic) or a text line. */
export function parseRecord(input: string): ParsedRecord {
  const raw = input.length > MAX_RECORD_LENGTH ? input.slice(0, MAX_RECORD_LENGTH) : input;
  const text = raw.trim();
  if (text.length === 0) return { format: 'raw', message: '', error: 'empty record' };
  if (!text.startsWith('{')) return parseText(text);
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    return { format: 'json', message: text, error: `invalid JSON: ${(e as Error).message}` };
  }
  const o = obj as Record<string, unknown>;
  // Container Insights dataplane (Fluent Bit): the journal message plus host metadata.
  if (
    str(o.message) !== undefined &&
    (o.systemd_unit !== undefined || o.hostname !== undefined || o.ec2_instance_id !== undefined)
  ) {
    const inner = parseText(String(o.message));
    return {
      ...inner,
      format: 'container-insights',
      node: str(o.hostname) ?? inner.node,
      instanceId: str(o.ec2_instance_id),
      source: str(o.systemd_unit)?.replace(/\.service$/, '') ?? inner.source,
    };
  }
  // ipamd / aws-cni plugin zap JSON.
  if (str(o.msg) !== undefined && o.level !== undefined && o.ts !== undefined) {
    return {
      format: 'ipamd-json',
      level: String(o.level),
      message: unescapeQuotes(String(o.msg)),
      source: str(o.caller) ?? 'ipamd',
    };
  }
  const message = str(o.message) ?? str(o.msg) ?? str(o.log);
  if (message === undefined)
    return { format: 'json', message: text, error: 'JSON record has no message, msg or log field' };
  const inner = parseText(message);
  return { ...inner, format: inner.format === 'raw' ? 'json' : inner.format };
}
