import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * The vendors' published request schemas (test/fixtures/vendor-schemas, each with its source URL)
 * compiled with ajv, plus the field limits the vendors document in prose. A check returns the
 * problems found: none means the body is what the vendor's API accepts.
 */

const fixture = (name: string) =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'vendor-schemas', name), 'utf8')) as Record<
    string,
    // biome-ignore lint/suspicious/noExplicitAny: JSON documents
    any
  >;

const ajv = new Ajv({ strict: false, allErrors: true });
// The schemas' formats: RFC 3339 date-time and an absolute URL (PagerDuty's "url").
ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(s));
ajv.addFormat('url', (s: string) => URL.canParse(s));

const pagerDuty = fixture('pagerduty-events-v2.json');
const opsgenie = fixture('opsgenie-alert.json');
const chat = fixture('amazon-q-custom-notification.json');

const validatePagerDuty = ajv.compile(pagerDuty.schema);
const validateCreate = ajv.compile({ ...opsgenie.definitions.CreateAlertPayload, definitions: opsgenie.definitions });
const validateClose = ajv.compile({ ...opsgenie.definitions.CloseAlertPayload, definitions: opsgenie.definitions });
const validateChat = ajv.compile(chat);

const errors = (e: ErrorObject[] | null | undefined) => (e ?? []).map((x) => `${x.instancePath} ${x.message}`);
const longer = (what: string, s: unknown, max: number) =>
  typeof s === 'string' && [...s].length > max ? [`${what} is ${[...s].length} characters, over ${max}`] : [];

/** A routing key as the EventBridge connection adds it to the body (32 characters, like an integration key). */
export const ROUTING_KEY = 'R0123456789abcdef0123456789abcde'.slice(0, 32);

/** Problems of a PagerDuty Events API v2 body once the connection added `routing_key`. */
export function pagerDutyProblems(body: Record<string, unknown>): string[] {
  const sent = { ...body, routing_key: ROUTING_KEY };
  const limits = pagerDuty.documentedLimits;
  const payload = (body.payload ?? {}) as Record<string, unknown>;
  const bytes = Buffer.byteLength(JSON.stringify(sent));
  return [
    ...(validatePagerDuty(sent) ? [] : errors(validatePagerDuty.errors)),
    ...longer('dedup_key', body.dedup_key, limits.dedup_key),
    ...longer('payload.summary', payload.summary, limits['payload.summary']),
    ...(bytes > limits.bytes ? [`body is ${bytes} bytes, over ${limits.bytes}`] : []),
  ];
}

/** Problems of an Opsgenie create-alert body. */
export function opsgenieCreateProblems(body: Record<string, unknown>): string[] {
  const l = opsgenie.documentedLimits;
  const tags = (body.tags ?? []) as string[];
  return [
    ...(validateCreate(body) ? [] : errors(validateCreate.errors)),
    ...longer('message', body.message, l.message),
    ...longer('alias', body.alias, l.alias),
    ...longer('description', body.description, l.description),
    ...longer('entity', body.entity, l.entity),
    ...longer('source', body.source, l.source),
    ...(tags.length > l.tags ? [`${tags.length} tags, over ${l.tags}`] : []),
    ...tags.flatMap((t) => longer(`tag ${t}`, t, l.tag)),
  ];
}

/** Problems of an Opsgenie close-alert body. */
export function opsgenieCloseProblems(body: Record<string, unknown>): string[] {
  const l = opsgenie.documentedLimits;
  return [
    ...(validateClose(body) ? [] : errors(validateClose.errors)),
    ...longer('source', body.source, l.source),
    ...longer('user', body.user, l.user),
    ...longer('note', body.note, l.note),
  ];
}

/** Problems of an Amazon Q Developer custom notification. */
export function chatCardProblems(card: unknown): string[] {
  return validateChat(card) ? [] : errors(validateChat.errors);
}
