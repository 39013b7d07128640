import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { SendTaskSuccessCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { snsSubject } from '../../core/sns-subject.js';
import { approvalKey } from '../incident-table.js';

export interface ApprovalRequest {
  readonly taskToken: string;
  readonly incidentId: string;
  readonly class: string;
  readonly cluster: string;
  readonly node?: { instanceId?: string; privateDnsName?: string };
  readonly plan: {
    nodeAction?: { id: string; description: string } | null;
    findings?: { id: string; status: string; summary: string }[];
    reasons?: string[];
  };
  readonly executionArn: string;
  /** An account change to approve: what it changes and its dry-run diff (from "Prepare remedy"). */
  readonly remedy?: { readonly remedy: string; readonly change: string; readonly diff: readonly string[] };
}

export interface ApprovalDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly tableName: string;
  /** HMAC key; never leaves the functions. */
  readonly secret: string;
  readonly now: () => number;
}

export type ApprovalDecision = 'approve' | 'reject';

/** The signature of one decision link: HMAC-SHA256 over id, expiry and decision. */
export function sign(secret: string, id: string, exp: number, decision: ApprovalDecision): string {
  return createHmac('sha256', secret).update(`${id}.${exp}.${decision}`).digest('base64url');
}

/**
 * Request approval: stores the task token server-side (the links carry only an id), and mails the
 * plan with two signed, expiring links.
 */
export async function requestApproval(
  r: ApprovalRequest,
  deps: ApprovalDeps & { sns: SNSClient; topicArn: string; callbackUrl: string; timeoutMinutes: number },
): Promise<{ approvalId: string; expiresAt: number }> {
  const id = randomUUID();
  const exp = deps.now() + deps.timeoutMinutes * 60_000;
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...approvalKey(id),
        taskToken: r.taskToken,
        incidentId: r.incidentId,
        exp,
        expiresAt: Math.floor(exp / 1000) + 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const link = (d: ApprovalDecision) =>
    `${deps.callbackUrl}?id=${id}&exp=${exp}&decision=${d}&sig=${sign(deps.secret, id, exp, d)}`;
  const where = r.node?.privateDnsName ?? r.node?.instanceId ?? '';
  const subject = snsSubject(
    `[pod-doctor] approval needed: ${r.remedy?.remedy ?? r.plan.nodeAction?.id ?? 'action'} on ${r.cluster}/${where}`,
  );
  const message = [
    `pod-doctor asks before acting on incident ${r.incidentId} (${r.class}).`,
    '',
    `PLAN      ${r.remedy ? r.remedy.change : (r.plan.nodeAction?.description ?? 'no node action')}`,
    ...(r.remedy ? ['', 'CHANGE (dry run: - before, + after)', ...r.remedy.diff.map((l) => `  ${l}`), ''] : []),
    `NODE      ${where}`,
    `DEADLINE  ${new Date(exp).toISOString()} (no answer = no action)`,
    '',
    'EVIDENCE',
    ...(r.plan.findings ?? [])
      .filter((f) => f.status !== 'pass')
      .map((f) => `  ${f.status.toUpperCase()} ${f.id}: ${f.summary}`),
    ...(r.plan.reasons?.length ? ['', 'SAFETY', ...r.plan.reasons.map((x) => `  - ${x}`)] : []),
    '',
    `Approve: ${link('approve')}`,
    `Reject:  ${link('reject')}`,
    '',
    `Execution: ${r.executionArn}`,
  ].join('\n');
  await deps.sns.send(new PublishCommand({ TopicArn: deps.topicArn, Subject: subject, Message: message }));
  return { approvalId: id, expiresAt: exp };
}

export interface CallbackResult {
  readonly statusCode: number;
  readonly body: string;
}

/** The approval link endpoint: checks signature and expiry, then resumes the waiting execution once. */
export async function handleApprovalCallback(
  query: Record<string, string | undefined>,
  deps: ApprovalDeps & { sfn: SFNClient },
): Promise<CallbackResult> {
  const { id, exp, decision, sig } = query;
  if (
    !id ||
    !/^[0-9a-f-]{36}$/.test(id) ||
    !exp ||
    !/^\d{13}$/.test(exp) ||
    (decision !== 'approve' && decision !== 'reject') ||
    !sig
  ) {
    return { statusCode: 400, body: 'malformed approval link' };
  }
  const expected = Buffer.from(sign(deps.secret, id, Number(exp), decision));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return { statusCode: 403, body: 'invalid signature' };
  if (deps.now() > Number(exp)) return { statusCode: 410, body: 'this approval link has expired; no action was taken' };
  const item = (await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: approvalKey(id) }))).Item;
  if (!item) return { statusCode: 404, body: 'unknown approval' };
  try {
    await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: approvalKey(id),
        UpdateExpression: 'SET usedAt = :now, decision = :d',
        ConditionExpression: 'attribute_not_exists(usedAt)',
        ExpressionAttributeValues: { ':now': deps.now(), ':d': decision },
      }),
    );
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException)
      return { statusCode: 409, body: 'this approval was already answered' };
    throw e;
  }
  await deps.sfn.send(
    new SendTaskSuccessCommand({
      taskToken: String(item.taskToken),
      output: JSON.stringify({
        approved: decision === 'approve',
        reason: decision === 'approve' ? 'approved' : 'rejected by the approver',
        decidedAt: new Date(deps.now()).toISOString(),
      }),
    }),
  );
  return {
    statusCode: 200,
    body: decision === 'approve' ? 'approved: pod-doctor will act now' : 'rejected: pod-doctor will not act',
  };
}
