import { timingSafeEqual } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { approvalKey } from '../../core/contract/incident-table.js';
import { type ApprovalPageDeps, resolveApproval } from './approval-page.js';
import { chatSignature } from './approval-signature.js';

/**
 * Approvals from chat: the approval-pending card in Slack or Teams carries Approve and Reject buttons
 * (Amazon Q Developer in chat applications custom actions) that send `approve/<token>` or
 * `reject/<token>` to pod-doctor's chat-approval queue with `aws sqs send-message`, under the channel's
 * role or, where the channel requires user roles, the approver's own. SQS stamps the sender (its
 * `SenderId` attribute, which the sender cannot set), and that identity is recorded as the approver.
 * The token is checked as the e-mail link is (signature over the approval, its incident and its
 * deadline; expiry; the approval unanswered), then the decision goes through the same
 * {@link resolveApproval} as the review page: the grant of exactly the approved request, the Task
 * resumed once.
 */

/** `approve|reject` / incident / approval id / deadline (epoch ms) / signature. */
const MESSAGE = /^(approve|reject)\/([A-Za-z0-9._-]{1,200})\/([0-9a-f-]{36})\/(\d{13})\/([A-Za-z0-9_-]{43})$/;

export type ChatDecision =
  | { readonly outcome: 'approve' | 'reject'; readonly approvalId: string; readonly incidentId: string }
  | { readonly outcome: 'refused'; readonly reason: string }
  /** Nothing was decided and the message may be tried again (Step Functions throttled or unavailable). */
  | { readonly outcome: 'retry'; readonly reason: string };

const refused = (reason: string): ChatDecision => ({ outcome: 'refused', reason });

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** One chat approval message, from `sender` (SQS SenderId: the role's id and session of who pressed the button). */
export async function decideInChat(body: string, sender: string, deps: ApprovalPageDeps): Promise<ChatDecision> {
  const m = MESSAGE.exec(body.trim());
  if (!m) return refused('not a pod-doctor chat approval');
  const [, decision, incidentId, id, expText, sig] = m;
  const exp = Number(expText);
  const keys = [deps.secret, ...(deps.previousSecret ? [deps.previousSecret] : [])];
  if (!keys.some((k) => same(chatSignature(k, id, exp, incidentId), sig)))
    return refused('invalid signature: not the approval of this incident shown in chat');
  if (deps.now() > exp) return refused('expired: no action was taken');
  const item = (await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: approvalKey(id) }))).Item;
  if (!item) return refused('unknown approval');
  if (item.incidentId !== incidentId) return refused(`the approval is not incident ${incidentId}'s`);
  if (item.usedAt !== undefined) return refused(`already answered: ${String(item.decision)}`);
  const by = { via: 'chat', approver: sender.slice(0, 256) };
  const r = await resolveApproval(id, item, decision as 'approve' | 'reject', by, deps);
  if (r.statusCode === 503) return { outcome: 'retry', reason: r.body };
  if (r.statusCode !== 200) return refused('already answered or the request has timed out');
  return { outcome: decision as 'approve' | 'reject', approvalId: id, incidentId };
}
