/**
 * Text for one channel: cut to the channel's budget and escaped for how the channel renders it. The
 * notice's text is already one line and redacted (outbound.ts, at the boundary that reads it);
 * here only the channel's own markup is neutralised.
 */

/** `s` cut to at most `max` characters (code points), ending in "…" when cut. */
export function clip(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** The first `max` items, and a last item saying how many more there were. */
export function firstOf(items: readonly string[], max: number, more: (n: number) => string): string[] {
  return items.length <= max ? [...items] : [...items.slice(0, max), more(items.length - max)];
}

/**
 * Chat text (Amazon Q Developer's `client-markdown`, rendered by Slack and Microsoft Teams): `&`, `<`
 * and `>` as entities, so no `<!channel>`, `<@U123>`, `<http://x|y>` link or HTML tag is ever read
 * as markup, and on one line.
 */
export function chatText(s: string, max: number): string {
  return clip(s.replace(/[\r\n]+/g, ' '), max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * Tenant text in chat: a code span, so Markdown and mrkdwn (`*bold*`, `_x_`, `~x~`, `[a](b)`, `#`) stay
 * literal. Slack has no escape for a backtick inside a span: a backtick becomes U+02CB (ˋ).
 */
export function chatCode(s: string, max: number): string {
  return `\`${chatText(s.replace(/`/g, 'ˋ'), max)}\``;
}

/**
 * Text a pager shows as HTML (Opsgenie renders HTML in message and description): entities for
 * markup only (`&`, `<`, `>`). Quotes stay quotes: the text is element content, never an attribute,
 * and the JSON body escapes them for the API (an `&quot;` would show as such).
 */
export function htmlText(s: string, max: number): string {
  return clip(s.replace(/[\r\n]+/g, ' '), max)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** One line of plain text within `max` characters (PagerDuty shows fields as text). */
export function plainText(s: string, max: number): string {
  return clip(s.replace(/[\r\n]+/g, ' '), max);
}
