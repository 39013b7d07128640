/**
 * Text on its way out (to the incident table, the evidence bucket, an execution input, an e-mail, a
 * page, Markdown or a chat message) goes through here: one line, no control characters, no secrets.
 * Callers do not clean fields one by one; the boundary cleans the whole record it hands on
 * ({@link outboundFields}), so a field added later is cleaned too.
 */
import { redact } from './redact.js';

/** Invisible format characters (zero-width, bidirectional overrides, soft hyphen, BOM, tags): removed. */
const FORMAT = /\p{Cf}+/gu;
/** Control characters (C0, DEL, C1 with NEL) and the Unicode line and paragraph separators: a space each run. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}]+/gu;

/**
 * `s` on one line: line breaks (CR, LF, VT, FF, NEL, U+2028, U+2029) and every other control character
 * become one space; invisible format characters (which can hide or reorder text) are dropped.
 */
export function oneLine(s: string): string {
  return s.replace(FORMAT, '').replace(BREAKS, ' ');
}

/** One field of outbound text: on one line (first, so no invisible character splits a secret), then redacted. */
export function outboundText(s: string): string {
  return redact(oneLine(s));
}

/**
 * A copy of `value` with every string in it (object values and keys, array items, at any depth) made
 * {@link outboundText}. Numbers, booleans and null pass unchanged.
 */
export function outboundFields<T>(value: T): T {
  return clean(value) as T;
}

function clean(v: unknown): unknown {
  if (typeof v === 'string') return outboundText(v);
  if (Array.isArray(v)) return v.map(clean);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [outboundText(k), clean(x)]));
  }
  return v;
}
