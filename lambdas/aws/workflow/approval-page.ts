import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  InvalidToken,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { approvalKey, grantKey } from '../../core/contract/incident-table.js';
import { mac, reviewSignature } from './approval-signature.js';

export { reviewSignature } from './approval-signature.js';

/**
 * The approval endpoint. Mail scanners (Safe Links and the like) fetch every link of a message, so
 * a GET never decides: it shows the plan, the evidence and the deadline with two buttons. Only a
 * POST from that page decides, carrying a per-request form token (HMAC over the approval id, a
 * random nonce and the time the page was served) that only the page holds. The decision records
 * who answered (source IP, user agent) and when, and resumes the execution once.
 */

export interface ApprovalHttpRequest {
  readonly method: string;
  readonly query: Readonly<Record<string, string | undefined>>;
  /** Form body (application/x-www-form-urlencoded), already base64-decoded. */
  readonly body?: string;
  readonly sourceIp: string;
  readonly userAgent: string;
}

export interface ApprovalPageDeps {
  readonly ddb: DynamoDBDocumentClient;
  readonly sfn: SFNClient;
  readonly tableName: string;
  /** The signing key now (AWSCURRENT): pages sign their form tokens with it. */
  readonly secret: string;
  /**
   * The key before the last rotation (AWSPREVIOUS): links and pages signed with it stay valid, so a
   * request pending across one rotation can still be answered.
   */
  readonly previousSecret?: string;
  readonly now: () => number;
}

export interface ApprovalResponse {
  readonly statusCode: number;
  readonly contentType: 'text/html; charset=utf-8';
  readonly body: string;
  /** The decision this request passed on to the workflow (absent: nothing was decided). */
  readonly decided?: 'approve' | 'reject';
}

/** How long a served page's buttons stay valid (the link itself expires with the approval). */
export const FORM_TTL_MS = 15 * 60_000;
const ID = /^[0-9a-f-]{36}$/;
const EXP = /^\d{13}$/;
/** An HMAC-SHA256 in base64url: 43 characters. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** HTML-escapes text that came from logs, nodes or the account (tenant-influenced). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const page = (statusCode: number, title: string, inner: string): ApprovalResponse => ({
  statusCode,
  contentType: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap;background:#f4f4f4;padding:.75rem}button{font-size:1rem;padding:.5rem 1.5rem;margin-right:1rem}</style></head><body><h1>${escapeHtml(title)}</h1>${inner}</body></html>`,
});
const message = (statusCode: number, text: string) =>
  page(statusCode, 'pod-doctor approval', `<p>${escapeHtml(text)}</p>`);

type Checked = { id: string; exp: number } | { error: ApprovalResponse };
type Fields = Readonly<Record<string, string | undefined>>;

/** The keys a signature may have been made with: the current one, then the one before the last rotation. */
const keysOf = (deps: ApprovalPageDeps) => [deps.secret, ...(deps.previousSecret ? [deps.previousSecret] : [])];

/** The link's id and expiry, if its signature is one of the keys' (shape and expiry: {@link refuseEarly}). */
function checkLink(q: Fields, deps: ApprovalPageDeps): Checked {
  const id = String(q.id);
  const exp = Number(q.exp);
  const sig = String(q.sig);
  if (!keysOf(deps).some((k) => same(reviewSignature(k, id, exp), sig)))
    return { error: message(403, 'invalid signature') };
  return { id, exp };
}

/** The form fields of a POST (application/x-www-form-urlencoded). */
function formOf(req: ApprovalHttpRequest): Fields {
  return Object.fromEntries(new URLSearchParams(req.body ?? '').entries());
}

/** A link that cannot be valid: malformed, or past its expiry. */
function linkProblem(q: Fields, now: number): ApprovalResponse | undefined {
  const { id, exp, sig } = q;
  if (!id || !ID.test(id) || !exp || !EXP.test(exp) || !sig || !SIGNATURE.test(sig))
    return message(400, 'malformed approval link');
  if (now > Number(exp)) return message(410, 'this approval link has expired; no action was taken');
  return undefined;
}

/**
 * What can be refused without the signing key, the table or any AWS call: another method, a link
 * that is malformed or expired, a decision that did not come from a page or whose page is stale.
 * The endpoint's URL is public; this keeps what junk requests cost to the function's own runtime.
 */
export function refuseEarly(req: ApprovalHttpRequest, now: number): ApprovalResponse | undefined {
  if (req.method === 'GET') return linkProblem(req.query, now);
  if (req.method !== 'POST') return message(405, 'only GET (review) and POST (decide) are accepted');
  const form = formOf(req);
  const link = linkProblem(form, now);
  if (link) return link;
  const { nonce, issued, token, decision } = form;
  if (!nonce || !issued || !EXP.test(issued) || !token || (decision !== 'approve' && decision !== 'reject'))
    return message(400, 'the decision must come from the approval page');
  if (now - Number(issued) > FORM_TTL_MS) return message(410, 'this page is stale: open the link again');
  return undefined;
}

/**
 * The approval of one request digest, which the door reads right before it runs that request: who
 * approved, when, through which approval. It expires with the history (a digest names one execution).
 */
async function grant(
  digest: string,
  approvalId: string,
  by: Readonly<Record<string, string>>,
  deps: ApprovalPageDeps,
): Promise<void> {
  const now = deps.now();
  await deps.ddb.send(
    new PutCommand({
      TableName: deps.tableName,
      Item: {
        ...grantKey(digest),
        approvedAt: now,
        approvalId,
        decidedBy: by,
        expiresAt: Math.floor(now / 1000) + 7 * 86_400,
      },
    }),
  );
}

/** GET shows the page, POST decides; anything else is refused. */
export async function handleApprovalHttp(req: ApprovalHttpRequest, deps: ApprovalPageDeps): Promise<ApprovalResponse> {
  const early = refuseEarly(req, deps.now());
  if (early) return early;
  return req.method === 'GET' ? showPage(req, deps) : decide(req, deps);
}

async function showPage(req: ApprovalHttpRequest, deps: ApprovalPageDeps): Promise<ApprovalResponse> {
  const link = checkLink(req.query, deps);
  if ('error' in link) return link.error;
  const item = (await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: approvalKey(link.id) }))).Item;
  if (!item) return message(404, 'unknown approval');
  if (item.usedAt !== undefined)
    return message(
      409,
      `this approval was already answered: ${String(item.decision)} at ${new Date(Number(item.usedAt)).toISOString()}`,
    );
  const issued = deps.now();
  const nonce = randomBytes(16).toString('base64url');
  const token = mac(deps.secret, 'form', link.id, link.exp, nonce, issued);
  const hidden = {
    id: link.id,
    exp: String(link.exp),
    sig: String(req.query.sig),
    nonce,
    issued: String(issued),
    token,
  };
  const fields = Object.entries(hidden)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
    .join('');
  const summary = typeof item.page === 'string' ? item.page : `incident ${String(item.incidentId)}`;
  return page(
    200,
    'pod-doctor asks before acting',
    `<pre>${escapeHtml(summary)}</pre><p>Deadline: <strong>${new Date(link.exp).toISOString()}</strong> (no answer = no action). Opening this page changed nothing.</p><form method="post">${fields}<button name="decision" value="approve">Approve</button><button name="decision" value="reject">Reject</button></form>`,
  );
}

async function decide(req: ApprovalHttpRequest, deps: ApprovalPageDeps): Promise<ApprovalResponse> {
  const form = formOf(req);
  const link = checkLink(form, deps);
  if ('error' in link) return link.error;
  const nonce = String(form.nonce);
  const issued = Number(form.issued);
  const decision = form.decision as 'approve' | 'reject';
  if (!keysOf(deps).some((k) => same(mac(k, 'form', link.id, link.exp, nonce, issued), String(form.token))))
    return message(403, 'invalid form token: open the link from the e-mail again');
  const item = (await deps.ddb.send(new GetCommand({ TableName: deps.tableName, Key: approvalKey(link.id) }))).Item;
  if (!item) return message(404, 'unknown approval');
  const by = { sourceIp: req.sourceIp.slice(0, 64), userAgent: req.userAgent.slice(0, 512) };
  if (item.usedAt !== undefined) return message(409, 'this approval was already answered');
  return resolveApproval(link.id, item, decision, by, deps);
}

/**
 * Passes a checked decision on, for the review page and for chat alike: the grant of exactly the
 * approved request (its digest, which the door requires before it runs that request), the Task
 * resumed once, the approval marked used with who decided. `by` is who answered: the page's source
 * IP and user agent, or the chat approver's AWS identity.
 */
export async function resolveApproval(
  id: string,
  item: Record<string, unknown>,
  decision: 'approve' | 'reject',
  by: Readonly<Record<string, string>>,
  deps: ApprovalPageDeps,
): Promise<ApprovalResponse> {
  // Resume first, mark used after: a failed call (denied, throttled) leaves the link usable. Step
  // Functions accepts one answer per task token, so a second POST, even a concurrent one, is refused.
  try {
    // The grant first: the door runs exactly the approved request (its digest) once it resumes.
    if (decision === 'approve' && typeof item.digest === 'string') await grant(item.digest, id, by, deps);
    await deps.sfn.send(
      new SendTaskSuccessCommand({
        taskToken: String(item.taskToken),
        output: JSON.stringify({
          approved: decision === 'approve',
          reason: decision === 'approve' ? 'approved' : 'rejected by the approver',
          decidedAt: new Date(deps.now()).toISOString(),
          decidedBy: by,
          ...(typeof item.digest === 'string' ? { digest: item.digest } : {}),
          ...(typeof item.slot === 'string' ? { slot: item.slot } : {}),
        }),
      }),
    );
  } catch (e) {
    if (e instanceof TaskTimedOut || e instanceof TaskDoesNotExist || e instanceof InvalidToken)
      return message(409, 'this approval was already answered or the request has timed out');
    // Denied, throttled, unavailable: nothing was decided and the link stays usable.
    return message(
      503,
      `pod-doctor could not pass your decision on (${(e as Error).name}); nothing was decided: try again in a minute`,
    );
  }
  try {
    await deps.ddb.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: approvalKey(id),
        UpdateExpression: 'SET usedAt = :now, decision = :d, decidedBy = :by',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt)',
        ExpressionAttributeValues: { ':now': deps.now(), ':d': decision, ':by': by },
      }),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
  return {
    ...message(200, decision === 'approve' ? 'approved: pod-doctor will act now' : 'rejected: pod-doctor will not act'),
    decided: decision,
  };
}
