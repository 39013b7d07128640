import type { Finding } from '../contract/findings.js';
import { lastJsonLine } from '../contract/probe.js';
import type { PlannedAction } from '../policy/policy.js';
import { codeBlock, codeSpan, inlineText } from '../text/markdown.js';
import { outboundFields } from '../text/outbound.js';
import { snsSubject } from '../text/sns-subject.js';
import type { IncidentInput } from '../workflow/workflow-config.js';

export interface ActionRecord {
  readonly id: string;
  readonly commandId?: string;
  readonly status: string;
  readonly outputExcerpt?: string;
  /** Further lines shown under the action (an account change's diff). */
  readonly detail?: readonly string[];
  /** Kept in the JSON evidence only (an account change's before / after state). */
  readonly evidence?: Record<string, unknown>;
}

export interface SummaryInput {
  readonly incident: IncidentInput;
  readonly node?: { instanceId?: string; privateDnsName?: string; nodegroupName?: string };
  readonly findings: readonly Finding[];
  readonly plannedActions: readonly PlannedAction[];
  readonly actions: readonly ActionRecord[];
  readonly outcome: string;
  readonly nextStep: string;
  readonly recommendations: readonly string[];
  readonly reasons: readonly string[];
  readonly executionArn: string;
  readonly region: string;
  readonly error?: { Error?: string; Cause?: string };
  /** Every approval answer of the incident, in the order asked (none: nothing asked). */
  readonly approvals?: readonly LabelledApproval[];
}

/** An answer and what it answered (the remedy or node action asked about). */
export interface LabelledApproval extends ApprovalRecord {
  readonly for: string;
}

/** What the approval page sends back with the decision (SendTaskSuccess output), or the expiry. */
export interface ApprovalRecord {
  readonly approved?: boolean;
  readonly reason?: string;
  readonly decidedAt?: string;
  /** Who answered: the function URL has no sign-in, so the request's source IP and user agent. */
  readonly decidedBy?: { readonly sourceIp?: string; readonly userAgent?: string };
}

/** "approved at <when> from <ip> (<user agent>)", or the reason there was no answer. */
function approvalText(a: ApprovalRecord, code: (s: string) => string = (x) => x): string {
  if (!a.decidedAt) return a.reason ?? (a.approved ? 'approved' : 'no answer');
  const by = a.decidedBy;
  return `${a.approved ? 'approved' : 'rejected'} at ${a.decidedAt}${by?.sourceIp ? ` from ${code(by.sourceIp)}` : ''}${by?.userAgent ? ` (user agent ${code(by.userAgent)})` : ''}`;
}

/**
 * One answer as {@link approvalText} reads; several: how many of the approvals asked were given, and
 * each with what it was for (every change asks on its own, so each one is required for its change).
 */
function approvalsText(list: readonly LabelledApproval[], code: (s: string) => string = (x) => x): string {
  if (list.length === 1) return approvalText(list[0], code);
  const given = list.filter((a) => a.approved === true).length;
  const each = list.map((a) => `${a.for}${a.decidedAt ? ' ' : ': '}${approvalText(a, code)}`);
  return `${given} of ${list.length} required approvals given: ${each.join('; ')}`;
}

export interface Summary {
  readonly subject: string;
  readonly text: string;
  readonly markdown: string;
  readonly json: Record<string, unknown>;
}

function subjectOf(s: SummaryInput): string {
  // The host part of a private DNS name is what operators call the node; the domain only costs characters.
  // Only a node's DNS name: an image (nginx:1.27.99), a registry or a subnet is named whole.
  const where = s.node?.privateDnsName?.split('.')[0] ?? s.node?.instanceId ?? s.incident.scopeValue;
  return snsSubject(`[pod-doctor] ${s.incident.class} on ${s.incident.cluster}/${where}: ${s.outcome}`);
}

const icon = (status: string) =>
  ({ pass: 'PASS', warn: 'WARN', fail: 'FAIL', error: 'ERR ' })[status] ?? status.toUpperCase();

/**
 * The console link of an execution, in the Region the execution runs in: its ARN's (the incident's
 * own Region, a replayed event's or a fleet member's, may be another); `region` only when the ARN
 * names none.
 */
export function consoleLink(executionArn: string, fallbackRegion: string): string {
  const region = /^arn:aws[a-z-]*:states:([a-z0-9-]+):/.exec(executionArn)?.[1] ?? fallbackRegion;
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${encodeURIComponent(executionArn)}`;
}

/**
 * The incident summary: email subject and plain-text body, Markdown and JSON of the same content.
 * Every field is outbound text first (one line, no control characters, no secrets), whatever its
 * source, so no field can add a line (a fake link, a fake section) to what is mailed or stored.
 */
export function renderSummary(input: SummaryInput): Summary {
  const s = outboundFields(input);
  const link = consoleLink(s.executionArn, s.region);
  return { subject: subjectOf(s), text: plainText(s, link), markdown: markdownOf(s, link), json: jsonOf(s, link) };
}

/** The email body: a fixed-width header, then one titled section per part of the incident. */
function plainText(s: SummaryInput, link: string): string {
  return [
    ...textHeader(s),
    '',
    'EVIDENCE',
    ...s.incident.samples.slice(0, 5).map((line) => `  ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`),
    ...textChecks(s.findings),
    ...textActions(s.actions),
    ...textNotDone(s.plannedActions),
    ...textSection('RECOMMENDED', s.recommendations),
    ...textSection('SAFETY', s.reasons),
    ...(s.error ? ['', `WORKFLOW ERROR  ${s.error.Error ?? 'error'}: ${(s.error.Cause ?? '').slice(0, 500)}`] : []),
    '',
    `Execution: ${link}`,
  ].join('\n');
}

/** The header lines: what failed, where, which pods and image, when, the outcome and the next step. */
function textHeader(s: SummaryInput): string[] {
  const i = s.incident;
  const lines = [
    `pod-doctor incident ${i.incidentId}`,
    '',
    `WHAT FAILED   ${i.class}: ${i.cause}`,
    `WHERE         cluster ${i.cluster}${textNodeWhere(s)}${s.node?.nodegroupName ? `, node group ${s.node.nodegroupName}` : ''}`,
  ];
  if (i.pods.length) lines.push(`PODS          ${i.pods.join(', ')}`);
  if (i.entities.image) lines.push(`IMAGE         ${i.entities.image}`);
  if (signalsOf(i).length) lines.push(`SIGNALS       ${signalsOf(i).join(', ')}`);
  lines.push(`FIRST SEEN    ${i.firstSeen}`, `OUTCOME       ${s.outcome}`, `NEXT STEP     ${s.nextStep}`);
  if (s.approvals?.length) lines.push(`APPROVAL      ${approvalsText(s.approvals)}`);
  return lines;
}

/**
 * The signals the incident came from; none for an input that predates them (an execution started by
 * an older ingest function reaches Summarize without the field when no schema filled the default).
 */
function signalsOf(i: IncidentInput): readonly string[] {
  return i.signals ?? [];
}

/** ", node <dns name> (<instance id>)" when the node was resolved, else the node the logs named, else nothing. */
function textNodeWhere(s: SummaryInput): string {
  if (s.node?.instanceId) return `, node ${s.node.privateDnsName ?? ''} (${s.node.instanceId})`;
  return s.incident.entities.node ? `, node ${s.incident.entities.node}` : '';
}

function textChecks(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return ['', 'CHECKS', '  (none ran)'];
  return ['', 'CHECKS', ...findings.map((f) => `  ${icon(f.status)}  ${f.id}: ${f.summary}`)];
}

function textActions(actions: readonly ActionRecord[]): string[] {
  if (actions.length === 0) return ['', 'ACTIONS', '  none taken'];
  return [
    '',
    'ACTIONS',
    ...actions.flatMap((a) => [
      `  ${a.id}: ${a.status}${a.commandId ? ` (SSM command ${a.commandId})` : ''}`,
      ...(a.outputExcerpt ? [`    ${a.outputExcerpt}`] : []),
      ...(a.detail ?? []).map((d) => `      ${d}`),
    ]),
  ];
}

/** The planned actions that were not carried out automatically, with why; nothing when all were. */
function textNotDone(plannedActions: readonly PlannedAction[]): string[] {
  const planned = plannedActions.filter((a) => a.disposition !== 'auto');
  if (!planned.length) return [];
  return ['', 'NOT DONE AUTOMATICALLY', ...planned.map((a) => `  ${a.id} (${a.tier}): ${a.disposition} - ${a.reason}`)];
}

/** A titled bullet list; nothing when the list is empty. */
function textSection(title: string, items: readonly string[]): string[] {
  return items.length ? ['', title, ...items.map((r) => `  - ${r}`)] : [];
}

/** The same content as Markdown, with every tenant-controlled value escaped or in a code span. */
function markdownOf(s: SummaryInput, link: string): string {
  return [
    `# ${subjectOf(s)}`,
    '',
    ...markdownFacts(s),
    '',
    '## Evidence',
    '',
    ...codeBlock(s.incident.samples.slice(0, 5)),
    '',
    '## Checks',
    '',
    '| status | check | summary |',
    '|---|---|---|',
    ...s.findings.map((f) => `| ${inlineText(f.status)} | ${codeSpan(f.id)} | ${inlineText(f.summary)} |`),
    '',
    '## Actions',
    '',
    ...(s.actions.length ? s.actions.map(markdownAction) : ['- none taken']),
    ...(s.recommendations.length
      ? ['', '## Recommended', '', ...s.recommendations.map((r) => `- ${inlineText(r)}`)]
      : []),
    '',
    `[Step Functions execution](${link})`,
    '',
  ].join('\n');
}

/** The bullet list at the top of the Markdown: what failed, where, pods, image, outcome, next step, approval. */
function markdownFacts(s: SummaryInput): string[] {
  const i = s.incident;
  return [
    `- **What failed:** ${codeSpan(i.class)} — ${inlineText(i.cause)}`,
    `- **Cluster:** ${inlineText(i.cluster)}${s.node?.instanceId ? ` · **node** ${inlineText(s.node.privateDnsName ?? '')} (${codeSpan(s.node.instanceId)})` : ''}`,
    ...(i.pods.length ? [`- **Pods:** ${i.pods.map(codeSpan).join(', ')}`] : []),
    ...(i.entities.image ? [`- **Image:** ${codeSpan(i.entities.image)}`] : []),
    ...(signalsOf(i).length ? [`- **Signals:** ${signalsOf(i).map(codeSpan).join(', ')}`] : []),
    `- **Outcome:** ${s.outcome}`,
    `- **Next step:** ${s.nextStep}`,
    ...(s.approvals?.length ? [`- **Approval:** ${approvalsText(s.approvals, codeSpan)}`] : []),
  ];
}

function markdownAction(a: ActionRecord): string {
  return `- ${codeSpan(a.id)}: ${inlineText(a.status)}${a.commandId ? ` (command ${codeSpan(a.commandId)})` : ''}${a.outputExcerpt ? ` — ${codeSpan(a.outputExcerpt)}` : ''}`;
}

/** The JSON evidence: the whole incident, findings, planned and taken actions, outcome and links. */
function jsonOf(s: SummaryInput, link: string): Record<string, unknown> {
  const i = s.incident;
  return {
    incidentId: i.incidentId,
    incidentKey: i.incidentKey,
    class: i.class,
    cause: i.cause,
    cluster: i.cluster,
    node: s.node ?? null,
    pods: i.pods,
    entities: i.entities,
    signals: signalsOf(i),
    evidence: i.samples,
    findings: s.findings,
    plannedActions: s.plannedActions,
    actions: s.actions,
    outcome: s.outcome,
    nextStep: s.nextStep,
    recommendations: s.recommendations,
    safety: s.reasons,
    error: s.error ?? null,
    approval: s.approvals?.at(-1) ?? null,
    approvals: s.approvals ?? [],
    executionArn: s.executionArn,
    consoleLink: link,
  };
}

/** A one-line excerpt of a node script's result for the summary. */
export function outputExcerpt(stdout: string | undefined): string | undefined {
  const j = lastJsonLine(stdout);
  if (j) return JSON.stringify(j).slice(0, 300);
  const last = (stdout ?? '').trim().split('\n').pop();
  return last ? last.slice(0, 300) : undefined;
}
