/**
 * Metamorphic envelopes: the ways one node message reaches CloudWatch Logs or a kubectl paste. A
 * corpus line is reduced to its message (the part the classifier reads) and re-wrapped in every
 * envelope its ORIGIN really produces; the class must not change. Formats, read from the programs'
 * source (facts only):
 *  - klog text header `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`; structured values are written
 *    with Go's strconv.Quote (inner quotes become \", newlines \n) — kubernetes/klog
 *    internal/serialize/keyvalues.go writeStringValue (commit dbd6b2bc8a30).
 *  - kubelet JSON logging (component-base logs/json): `{"ts":<ms float>,"caller":…,"msg":…,"v":0,"err":…}`.
 *  - journald short output: `Mmm dd hh:mm:ss host unit[pid]: message`.
 *  - containerd/dockerd/host-ctr logrus text: `time="…" level=error msg=… error=…`, a value quoted with
 *    fmt's %q when it holds anything but [A-Za-z0-9-._/@^+] — sirupsen/logrus text_formatter.go
 *    appendValue/needsQuoting; on a terminal the level is an ANSI-coloured `ERRO[0000]` prefix and each
 *    key is coloured (same file, printColored).
 *  - ipamd/aws-node: zap JSON with keys level, ts (ISO 8601), caller, msg — aws/amazon-vpc-cni-k8s
 *    pkg/utils/logger/zaplogger.go (commit b52188387f2e); shipped from aws-node's stdout as a Container
 *    Insights record `{"log": "<zap line>\n", "stream": …, "kubernetes": {…}}` (the line JSON-escaped twice).
 *  - Container Insights dataplane: `{"hostname", "systemd_unit", "message": "<journal message>"}`.
 *  - `kubectl describe` Events rows: `Type\tReason\tAge\tFrom\tMessage` padded by tabwriter, Age
 *    `3m (x4 over 5m)`, Message `strings.TrimSpace(e.Message)` prefixed with `<fieldPath>: ` when the
 *    event names a container — kubernetes/kubectl pkg/describe/describe.go DescribeEvents (dee3483a3d6a).
 *  - `kubectl get events`: `LAST SEEN  TYPE  REASON  OBJECT  MESSAGE`.
 *  - Event notes are limited to 1,024 characters (NoteLengthLimit, pkg/apis/core/validation/events.go);
 *    the scheduler truncates to it with a ` ...` suffix (pkg/scheduler truncateMessage).
 */
import { parseRecord, quotedValue } from '../../lambdas/core/detect/records.js';
import type { LabelledLine } from './corpus.js';

/** What an envelope carries: an optional header message (`msg`) and the cause text (`err`). */
export interface Carried {
  readonly msg?: string;
  readonly err: string;
  readonly level?: string;
  /** The program a journal prefix named (pull-sandbox-image.sh, containerd, …). */
  readonly program?: string;
  /** The key=value pairs a structured line carries after its error (` pod="…" subsys=eni`), kept. */
  readonly tail?: string;
}

/**
 * kubelet: kubelet's own lines and the runtime/CNI errors it logs and turns into events; logrus: a Go
 * program logging logrus text (containerd, dockerd, host-ctr, cilium); journal: another program's
 * free-text journal line; ipamd: aws-node's zap JSON.
 */
export type Origin = 'kubelet' | 'logrus' | 'journal' | 'ipamd';

export interface Envelope {
  readonly name: string;
  readonly origin: Origin;
  readonly wrap: (c: Carried, l: LabelledLine) => string;
}

const HOST = 'ip-10-0-1-2.ec2.internal';
const JOURNAL_TIME = 'Nov 30 12:00:00';
const PULL_CLASSES = new Set(['image-not-found', 'image-pull-failed', 'image-platform', 'rate-limited']);

/** Go's strconv.Quote for the text the corpus holds (JSON string syntax, control bytes as \x..). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1');
}

/** A Go-quoted (or logrus %q) value's text: JSON-parsed when it can be, else its quotes unescaped. */
function unquote(v: string): string {
  try {
    return JSON.parse(`"${v.replace(/\\x([0-9a-f]{2})/g, '\\u00$1')}"`) as string;
  } catch {
    return v.replace(/\\"/g, '"');
  }
}

/** Which kubelet message a runtime error is logged under. */
function isPull(c: Carried, l: LabelledLine): boolean {
  return PULL_CLASSES.has(l.class) || /\bpull|registry-|image "/i.test(c.err);
}

function kubeletHeader(c: Carried, l: LabelledLine): string {
  return c.msg ?? (isPull(c, l) ? 'PullImage from image service failed' : 'RunPodSandbox from runtime service failed');
}

/** A healthy line is logged as itself (an info line), a failure under the call that failed with `err=`. */
const klogStructured = (c: Carried, l: LabelledLine) =>
  l.class === 'unknown' && c.msg === undefined
    ? `I1130 12:00:00.000000    1234 kubelet.go:2531] ${goQuote(c.err)} pod="default/web-0"`
    : `E1130 12:00:00.000000    1234 remote_runtime.go:116] ${goQuote(kubeletHeader(c, l))} err=${goQuote(c.err)}${c.tail ?? ' pod="default/web-0"'}`;

const kubeletJson = (c: Carried, l: LabelledLine) =>
  JSON.stringify(
    l.class === 'unknown' && c.msg === undefined
      ? { ts: 1764504000000.123, caller: 'kubelet/kubelet.go:2531', msg: c.err, v: 0 }
      : {
          ts: 1764504000000.123,
          caller: 'kuberuntime/kuberuntime_sandbox.go:72',
          msg: kubeletHeader(c, l),
          v: 0,
          err: c.err,
        },
  );

const logfmt = (c: Carried) =>
  `time="2026-11-30T12:00:00.000000000Z" level=${c.level ?? 'error'} msg=${goQuote(c.msg ?? c.err)}${c.msg === undefined ? '' : ` error=${goQuote(c.err)}`}${c.tail ?? ''}`;

const zap = (c: Carried) =>
  JSON.stringify({
    level: c.level ?? 'error',
    ts: '2026-11-30T12:00:00.000Z',
    caller: 'ipamd/ipamd.go:123',
    msg: c.msg ?? c.err,
    ...(c.msg === undefined ? {} : { error: c.err }),
  });

function eventMessage(c: Carried): string {
  const m = c.msg === undefined ? c.err : `${c.msg}: ${c.err}`;
  return m.trim();
}

/** Type and reason of the event a message is the note of. */
function eventReason(c: Carried, l: LabelledLine): string {
  if (l.class === 'unknown') return 'Normal   Started';
  return isPull(c, l) ? 'Warning  Failed' : 'Warning  FailedCreatePodSandBox';
}

function withCall(c: Carried, l: LabelledLine): string {
  const m = eventMessage(c);
  if (l.class === 'unknown' || /pod sandbox|pull image|Error syncing pod/i.test(m)) return m;
  return isPull(c, l) ? `Failed to pull image "nginx:1.27": ${m}` : `Failed to create pod sandbox: ${m}`;
}

/** An event note cut to the API's 1,024-character limit as the scheduler cuts it. */
export function truncateNote(m: string): string {
  return m.length <= 1024 ? m : `${m.slice(0, 1024 - 4)} ...`;
}

export const ENVELOPES: readonly Envelope[] = [
  {
    name: 'klog printf',
    origin: 'kubelet',
    wrap: (c) => `E1130 12:00:00.000000    1234 kuberuntime_manager.go:815] ${eventMessage(c)}`,
  },
  { name: 'klog structured', origin: 'kubelet', wrap: klogStructured },
  {
    name: 'journald klog',
    origin: 'kubelet',
    wrap: (c, l) => `${JOURNAL_TIME} ${HOST} kubelet[1234]: ${klogStructured(c, l)}`,
  },
  {
    name: 'kubelet JSON',
    origin: 'kubelet',
    wrap: kubeletJson,
  },
  {
    name: 'Container Insights dataplane klog',
    origin: 'kubelet',
    wrap: (c, l) =>
      JSON.stringify({
        hostname: HOST,
        systemd_unit: 'kubelet.service',
        ec2_instance_id: 'i-0123456789abcdef0',
        message: klogStructured(c, l),
      }),
  },
  {
    name: 'kubectl describe event',
    origin: 'kubelet',
    wrap: (c, l) => `  ${eventReason(c, l)}  3m (x4 over 5m)  kubelet  ${truncateNote(eventMessage(c))}`,
  },
  {
    name: 'kubectl describe event with field path',
    origin: 'kubelet',
    wrap: (c, l) =>
      `  ${eventReason(c, l)}  3m (x4 over 5m)  kubelet  spec.containers{app}: ${truncateNote(eventMessage(c))}`,
  },
  {
    name: 'kubectl get events',
    origin: 'kubelet',
    wrap: (c, l) => `3m          ${eventReason(c, l)}   pod/web-0   ${truncateNote(eventMessage(c))}`,
  },
  {
    // kubelet's own note for the call that failed (kuberuntime: "Failed to create pod sandbox: %v",
    // images: "Failed to pull image %q: %v"; before 1.11 "Failed create pod sandbox: %v").
    name: 'kubectl describe event with the failed call',
    origin: 'kubelet',
    wrap: (c, l) => `  ${eventReason(c, l)}  3m (x4 over 5m)  kubelet  ${truncateNote(withCall(c, l))}`,
  },
  {
    // client-go's event aggregator (tools/record/events_cache.go EventAggregatorMessageFunc) prefixes a
    // message it combines from more than 10 similar events in 10 minutes.
    name: 'kubectl describe event combined from similar events',
    origin: 'kubelet',
    wrap: (c, l) =>
      `  ${eventReason(c, l)}  2m (x31 over 1h)  kubelet  ${truncateNote(`(combined from similar events): ${eventMessage(c)}`)}`,
  },
  {
    // The Event object itself (`kubectl get events -o json` items, event exporters): core/v1 Event fields.
    name: 'Event object JSON',
    origin: 'kubelet',
    wrap: (c, l) => {
      const [type, reason] = eventReason(c, l).split(/ +/);
      return JSON.stringify({
        kind: 'Event',
        type,
        reason,
        message: truncateNote(eventMessage(c)),
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0' },
        source: { component: 'kubelet', host: HOST },
        count: 4,
      });
    },
  },
  {
    name: 'kubectl describe event pasted with CRLF',
    origin: 'kubelet',
    wrap: (c, l) => `  ${eventReason(c, l)}  3m  kubelet  ${truncateNote(eventMessage(c))}\r`,
  },
  { name: 'logfmt', origin: 'logrus', wrap: logfmt },
  {
    name: 'journald logfmt',
    origin: 'logrus',
    wrap: (c) => `${JOURNAL_TIME} ${HOST} ${c.program ?? 'containerd'}[812]: ${logfmt(c)}`,
  },
  {
    name: 'Container Insights dataplane logfmt',
    origin: 'logrus',
    wrap: (c) =>
      JSON.stringify({ hostname: HOST, systemd_unit: `${c.program ?? 'containerd'}.service`, message: logfmt(c) }),
  },
  { name: 'journald', origin: 'journal', wrap: (c) => `${JOURNAL_TIME} ${HOST} ${c.program}[4321]: ${c.err}` },
  {
    name: 'Container Insights dataplane',
    origin: 'journal',
    wrap: (c) =>
      JSON.stringify({
        hostname: HOST,
        systemd_unit: `${c.program}.service`,
        syslog_identifier: c.program,
        message: c.err,
      }),
  },
  {
    name: 'logrus on a terminal (ANSI colours)',
    origin: 'logrus',
    wrap: (c) =>
      `\x1b[31mERRO\x1b[0m[0000] ${(c.msg ?? c.err).padEnd(44)}${c.msg === undefined ? '' : ` \x1b[31merror\x1b[0m=${goQuote(c.err)}`}${c.tail ?? ''}`,
  },
  { name: 'ipamd JSON', origin: 'ipamd', wrap: zap },
  {
    name: 'Container Insights aws-node',
    origin: 'ipamd',
    wrap: (c) =>
      JSON.stringify({
        log: `${zap(c)}\n`,
        stream: 'stdout',
        kubernetes: {
          pod_name: 'aws-node-x7k2p',
          namespace_name: 'kube-system',
          container_name: 'aws-node',
          host: HOST,
        },
      }),
  },
];

const KUBELET_FORMATS = new Set([
  'klog',
  'kubelet-structured',
  'kubectl-describe',
  'kubectl-events',
  'plain',
  'project',
]);

/**
 * The program that printed a corpus line, as the line itself and its recorded format tell; undefined:
 * no other envelope applies (CloudTrail arrives through EventBridge; the CNI plugin's own file, the
 * Windows agents' own logs, credential-provider stderr and generic JSON reach CloudWatch in one
 * envelope only).
 */
export function originOf(l: LabelledLine): Origin | undefined {
  const p = parseRecord(l.line);
  if (p.format === 'ipamd-json' && l.format === 'ipamd-json') return 'ipamd';
  if (p.format === 'containerd-logfmt' && p.message.length > 0) return 'logrus';
  // A journal line: free text, or a JSON object (zap, kubelet's JSON format) the reader takes after the prefix.
  const behindPrefix =
    p.format === 'raw' || ((p.format === 'ipamd-json' || p.format === 'json') && !l.line.startsWith('{'));
  if (behindPrefix && p.source !== undefined && p.source !== 'kubelet') return 'journal';
  if (KUBELET_FORMATS.has(l.format)) return 'kubelet';
  // Windows nodes: the CNI/HNS answers kubelet relays (sandbox and pull failures) and kubelet's own klog lines.
  if (l.format === 'windows' && (p.format === 'klog' || /pod sandbox|pull image/i.test(p.message))) return 'kubelet';
  return undefined;
}

/** The rest of a logfmt line after an unterminated `key="` (journald cuts a multi-line value). */
function openValue(line: string, key: string): string | undefined {
  const i = line.search(new RegExp(`(?:^|\\s)${key}="`));
  return i < 0 ? undefined : line.slice(line.indexOf('"', i) + 1);
}

/**
 * The message a corpus line carries: a structured or logfmt line's header and its error value
 * (unescaped once), else the whole message the reader extracts.
 */
export function carriedOf(line: string): Carried {
  const p = parseRecord(line);
  const program = p.source;
  if (p.format === 'ipamd-json') {
    // The JSON object itself, also behind a journal prefix.
    const o = JSON.parse(line.slice(line.indexOf('{')).trim()) as Record<string, unknown>;
    const err = typeof o.error === 'string' ? o.error : typeof o.err === 'string' ? o.err : undefined;
    return err === undefined ? { err: String(o.msg), level: p.level } : { msg: String(o.msg), err, level: p.level };
  }
  const rawErr = quotedValue(line, 'err') ?? quotedValue(line, 'error') ?? openValue(line, 'error');
  if (p.format === 'klog' || p.format === 'containerd-logfmt') {
    const header = p.format === 'klog' ? /\] "((?:[^"\\]|\\.)*)"/.exec(line)?.[1] : quotedValue(line, 'msg');
    if (rawErr !== undefined && header !== undefined) {
      const end = line.indexOf(`"${rawErr}"`) + rawErr.length + 2;
      const tail = end >= rawErr.length + 2 && end < line.length ? line.slice(end) : undefined;
      return { msg: unquote(header), err: unquote(rawErr), level: p.level, program, tail };
    }
    if (header !== undefined && p.format === 'containerd-logfmt')
      return { err: unquote(header), level: p.level, program };
  }
  return { err: p.message, program };
}

/** A way a whole line is pasted or streamed, applied to the line as the corpus holds it. */
export interface Paste {
  readonly name: string;
  readonly applies: (l: LabelledLine) => boolean;
  readonly paste: (line: string) => string;
}

const isJson = (l: LabelledLine) => l.line.trimStart().startsWith('{');
/** Lines a container writes to stdout/stderr (read back with `kubectl logs`): zap JSON, logrus text. */
const fromContainer = (l: LabelledLine) => originOf(l) === 'ipamd' || originOf(l) === 'logrus';

export const PASTES: readonly Paste[] = [
  // GitHub issue text quoted in Markdown.
  { name: 'Markdown quote', applies: (l) => originOf(l) !== undefined, paste: (line) => `> ${line}` },
  // Markdown outside a code block drops the backslash of an escaped punctuation mark (\" renders ").
  {
    name: 'Markdown lost backslashes',
    applies: (l) => originOf(l) !== undefined && !isJson(l) && l.line.includes('\\"'),
    paste: (line) => line.replace(/\\"/g, '"'),
  },
  // A blog engine's typography outside code blocks (WordPress wptexturize): curly quotes and apostrophes.
  {
    name: 'curly quotes',
    applies: (l) => originOf(l) !== undefined && !isJson(l),
    paste: (line) => line.replace(/"([^"]*)"/g, '\u201c$1\u201d').replace(/'/g, '\u2019'),
  },
  // `kubectl logs --timestamps`: RFC 3339 time then the line (kubectl logs help).
  {
    name: 'kubectl logs --timestamps',
    applies: fromContainer,
    paste: (line) => `2026-11-30T12:00:00.123456789Z ${line}`,
  },
  // The container log file the CRI runtime writes (kubelet's CRI logging format: time, stream, P/F tag).
  {
    name: 'CRI container log file',
    applies: fromContainer,
    paste: (line) => `2026-11-30T12:00:00.123456789Z stderr F ${line}`,
  },
  // `kubectl logs --prefix`: [pod/<name>/<container>] then the line.
  { name: 'kubectl logs --prefix', applies: fromContainer, paste: (line) => `[pod/aws-node-x7k2p/aws-node] ${line}` },
];
