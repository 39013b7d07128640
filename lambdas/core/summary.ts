import type { Finding } from './findings.js';
import { codeBlock, codeSpan, inlineText } from './markdown.js';
import type { PlannedAction } from './policy.js';
import { lastJsonLine } from './probe.js';
import { snsSubject } from './sns-subject.js';
import type { IncidentInput } from './workflow-config.js';

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
  /** The approver's answer, as the approval page recorded it (when there was an approval request). */
  readonly approval?: ApprovalRecord;
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

export interface Summary {
  readonly subject: string;
  readonly text: string;
  readonly markdown: string;
  readonly json: Record<string, unknown>;
}

function subjectOf(s: SummaryInput): string {
  // The host part of a private DNS name is what operators call the node; the domain only costs characters.
  const where = (s.node?.privateDnsName ?? s.node?.instanceId ?? s.incident.scopeValue).split('.')[0];
  return snsSubject(`[pod-doctor] ${s.incident.class} on ${s.incident.cluster}/${where}: ${s.outcome}`);
}

const icon = (status: string) =>
  ({ pass: 'PASS', warn: 'WARN', fail: 'FAIL', error: 'ERR ' })[status] ?? status.toUpperCase();

/** The console link of an execution. */
export function consoleLink(executionArn: string, region: string): string {
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${encodeURIComponent(executionArn)}`;
}

/** The incident summary: email subject and plain-text body, Markdown and JSON of the same content. */
export function renderSummary(s: SummaryInput): Summary {
  const i = s.incident;
  const e = i.entities;
  const link = consoleLink(s.executionArn, s.region);
  const lines: string[] = [
    `pod-doctor incident ${i.incidentId}`,
    '',
    `WHAT FAILED   ${i.class}: ${i.cause}`,
    `WHERE         cluster ${i.cluster}${s.node?.instanceId ? `, node ${s.node.privateDnsName ?? ''} (${s.node.instanceId})` : e.node ? `, node ${e.node}` : ''}${s.node?.nodegroupName ? `, node group ${s.node.nodegroupName}` : ''}`,
  ];
  if (i.pods.length) lines.push(`PODS          ${i.pods.join(', ')}`);
  if (e.image) lines.push(`IMAGE         ${e.image}`);
  lines.push(`FIRST SEEN    ${i.firstSeen}`, `OUTCOME       ${s.outcome}`, `NEXT STEP     ${s.nextStep}`);
  if (s.approval) lines.push(`APPROVAL      ${approvalText(s.approval)}`);
  lines.push('', 'EVIDENCE');
  for (const line of i.samples.slice(0, 5)) lines.push(`  ${line.length > 400 ? `${line.slice(0, 400)}…` : line}`);
  lines.push('', 'CHECKS');
  if (s.findings.length === 0) lines.push('  (none ran)');
  for (const f of s.findings) lines.push(`  ${icon(f.status)}  ${f.id}: ${f.summary}`);
  lines.push('', 'ACTIONS');
  if (s.actions.length === 0) lines.push('  none taken');
  for (const a of s.actions) {
    lines.push(`  ${a.id}: ${a.status}${a.commandId ? ` (SSM command ${a.commandId})` : ''}`);
    if (a.outputExcerpt) lines.push(`    ${a.outputExcerpt}`);
    for (const d of a.detail ?? []) lines.push(`      ${d}`);
  }
  const planned = s.plannedActions.filter((a) => a.disposition !== 'auto');
  if (planned.length) {
    lines.push('', 'NOT DONE AUTOMATICALLY');
    for (const a of planned) lines.push(`  ${a.id} (${a.tier}): ${a.disposition} - ${a.reason}`);
  }
  if (s.recommendations.length) {
    lines.push('', 'RECOMMENDED');
    for (const r of s.recommendations) lines.push(`  - ${r}`);
  }
  if (s.reasons.length) {
    lines.push('', 'SAFETY');
    for (const r of s.reasons) lines.push(`  - ${r}`);
  }
  if (s.error) lines.push('', `WORKFLOW ERROR  ${s.error.Error ?? 'error'}: ${(s.error.Cause ?? '').slice(0, 500)}`);
  lines.push('', `Execution: ${link}`);
  const text = lines.join('\n');
  const markdown = [
    `# ${subjectOf(s)}`,
    '',
    `- **What failed:** ${codeSpan(i.class)} — ${inlineText(i.cause)}`,
    `- **Cluster:** ${inlineText(i.cluster)}${s.node?.instanceId ? ` · **node** ${inlineText(s.node.privateDnsName ?? '')} (${codeSpan(s.node.instanceId)})` : ''}`,
    ...(i.pods.length ? [`- **Pods:** ${i.pods.map(codeSpan).join(', ')}`] : []),
    ...(e.image ? [`- **Image:** ${codeSpan(e.image)}`] : []),
    `- **Outcome:** ${s.outcome}`,
    `- **Next step:** ${s.nextStep}`,
    ...(s.approval ? [`- **Approval:** ${approvalText(s.approval, codeSpan)}`] : []),
    '',
    '## Evidence',
    '',
    ...codeBlock(i.samples.slice(0, 5)),
    '',
    '## Checks',
    '',
    '| status | check | summary |',
    '|---|---|---|',
    ...s.findings.map((f) => `| ${inlineText(f.status)} | ${codeSpan(f.id)} | ${inlineText(f.summary)} |`),
    '',
    '## Actions',
    '',
    ...(s.actions.length
      ? s.actions.map(
          (a) =>
            `- ${codeSpan(a.id)}: ${inlineText(a.status)}${a.commandId ? ` (command ${codeSpan(a.commandId)})` : ''}${a.outputExcerpt ? ` — ${codeSpan(a.outputExcerpt)}` : ''}`,
        )
      : ['- none taken']),
    ...(s.recommendations.length
      ? ['', '## Recommended', '', ...s.recommendations.map((r) => `- ${inlineText(r)}`)]
      : []),
    '',
    `[Step Functions execution](${link})`,
    '',
  ].join('\n');
  const json = {
    incidentId: i.incidentId,
    incidentKey: i.incidentKey,
    class: i.class,
    cause: i.cause,
    cluster: i.cluster,
    node: s.node ?? null,
    pods: i.pods,
    entities: e,
    evidence: i.samples,
    findings: s.findings,
    plannedActions: s.plannedActions,
    actions: s.actions,
    outcome: s.outcome,
    nextStep: s.nextStep,
    recommendations: s.recommendations,
    safety: s.reasons,
    error: s.error ?? null,
    approval: s.approval ?? null,
    executionArn: s.executionArn,
    consoleLink: link,
  };
  return { subject: subjectOf(s), text, markdown, json };
}

/** A one-line excerpt of a node script's result for the summary. */
export function outputExcerpt(stdout: string | undefined): string | undefined {
  const j = lastJsonLine(stdout);
  if (j) return JSON.stringify(j).slice(0, 300);
  const last = (stdout ?? '').trim().split('\n').pop();
  return last ? last.slice(0, 300) : undefined;
}
