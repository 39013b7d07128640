import { randomUUID } from 'node:crypto';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { approvalKey } from '../../core/contract/incident-table.js';
import type { DoorAsk } from '../../core/door/state.js';
import { outboundFields } from '../../core/text/outbound.js';
import { snsSubject } from '../../core/text/sns-subject.js';
import { chatApprovalToken, reviewSignature } from './approval-signature.js';

export interface ApprovalRequest {
  readonly taskToken: string;
  readonly incidentId: string;
  readonly class: string;
  readonly cluster: string;
  readonly node?: { instanceId?: string; privateDnsName?: string };
  /** What the door asks for: exactly this action and change (its digest), as the door computed it now. */
  readonly ask: DoorAsk;
  /** The evidence and the safety notes of the plan. */
  readonly findings?: readonly { id: string; status: string; summary: string }[];
  readonly reasons?: readonly string[];
  /** The incident's cause and the log lines or events that show it (what the approver weighs). */
  readonly cause?: string;
  readonly samples?: readonly string[];
  readonly executionArn: string;
}

/** Most evidence lines kept on the approval row (the chat card and the pages show a few). */
const MAX_EVIDENCE = 3;

export interface ApprovalDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
  /** HMAC key; never leaves the functions. */
  readonly secret: string;
  readonly now: () => number;
}

/** Most characters of the plan text kept for the review page. */
const MAX_PAGE_CHARS = 32 * 1024;

/**
 * Request approval: stores the task token and the plan server-side (the link carries only an id),
 * and mails the plan with one signed, expiring review link. Opening it changes nothing: the page
 * it shows decides by POST (see approval-page.ts), so a mail scanner fetching links cannot.
 */
export async function requestApproval(
  r: ApprovalRequest,
  deps: ApprovalDeps & { sns: SNSClient; topicArn: string; callbackUrl: string; timeoutMinutes: number },
): Promise<{ approvalId: string; expiresAt: number }> {
  const id = randomUUID();
  const exp = deps.now() + deps.timeoutMinutes * 60_000;
  // What the approver reads (mail and page) is outbound text: one line per field, no secrets. The task token is not shown.
  const { taskToken, ...shown } = r;
  const display = outboundFields(shown);
  const where = display.node?.privateDnsName ?? display.node?.instanceId ?? '';
  const plan = planText(display, where, exp);
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...approvalKey(id),
        taskToken,
        incidentId: r.incidentId,
        // What the notices of chat and pagers name (stored-notice.ts): the incident, where, and what waits.
        class: r.class,
        cluster: r.cluster,
        where,
        action: r.ask.kind,
        // Why it is asked: the cause and its evidence, apart from the ask (stored-notice.ts).
        cause: display.cause ?? '',
        evidence: (display.samples ?? []).slice(0, MAX_EVIDENCE).map((l) => l.slice(0, 2_000)),
        // What the approval covers: the door runs only a request whose digest is this one.
        digest: r.ask.digest,
        slot: r.ask.slot,
        page: plan.slice(0, MAX_PAGE_CHARS),
        // What the chat card's approve and reject buttons send (approval-chat.ts checks it as the page checks the link).
        chat: chatApprovalToken(deps.secret, id, exp, r.incidentId),
        exp,
        expiresAt: Math.floor(exp / 1000) + 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const link = `${deps.callbackUrl}?id=${id}&exp=${exp}&sig=${reviewSignature(deps.secret, id, exp)}`;
  const subject = snsSubject(`[pod-doctor] approval needed: ${display.ask.kind} on ${display.cluster}/${where}`);
  const message = [
    plan,
    '',
    `Review and decide: ${link}`,
    '(opening the link changes nothing; approve or reject with the buttons on the page)',
    '',
    `Execution: ${display.executionArn}`,
  ].join('\n');
  await deps.sns.send(new PublishCommand({ TopicArn: deps.topicArn, Subject: subject, Message: message }));
  return { approvalId: id, expiresAt: exp };
}

/** What the approver reads, in the e-mail and on the review page. */
function planText(r: Omit<ApprovalRequest, 'taskToken'>, where: string, exp: number): string {
  return [
    `pod-doctor asks before acting on incident ${r.incidentId} (${r.class}).`,
    '',
    `PLAN      ${r.ask.description}`,
    `ACTION    ${r.ask.line}`,
    `WHY       ${r.ask.reason}`,
    ...(r.ask.diff.length ? ['', 'CHANGE (dry run: - before, + after)', ...r.ask.diff.map((l) => `  ${l}`), ''] : []),
    `NODE      ${where}`,
    `DEADLINE  ${new Date(exp).toISOString()} (no answer = no action)`,
    `APPROVES  request ${r.ask.digest.slice(0, 16)}: exactly this action and change; anything else asks again`,
    '',
    'EVIDENCE',
    ...(r.findings ?? [])
      .filter((f) => f.status !== 'pass')
      .map((f) => `  ${f.status.toUpperCase()} ${f.id}: ${f.summary}`),
    ...(r.reasons?.length ? ['', 'SAFETY', ...r.reasons.map((x) => `  - ${x}`)] : []),
  ].join('\n');
}
