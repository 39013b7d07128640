import { chatCode, chatText, firstOf } from './channel-text.js';
import { dedupKey, type IncidentNotice, type NoticeKind } from './notice.js';

/**
 * A notice as an Amazon Q Developer in chat applications custom notification, which Slack and
 * Microsoft Teams render as a card (title, description, next steps, keywords) and thread by
 * `metadata.threadId`: one thread per incident. Event schema:
 * https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html
 */
export interface CustomNotification {
  readonly version: '1.0';
  readonly source: 'custom';
  readonly id: string;
  readonly content: {
    readonly textType: 'client-markdown';
    readonly title: string;
    readonly description: string;
    readonly nextSteps: readonly string[];
    readonly keywords: readonly string[];
  };
  readonly metadata: {
    readonly threadId: string;
    readonly summary: string;
    readonly eventType: string;
    readonly relatedResources: readonly string[];
    readonly additionalContext: Readonly<Record<string, string>>;
    /** No custom action buttons: chat reads, it never acts (the approval stays with the signed e-mail link). */
    readonly enableCustomActions: false;
  };
}

/** Budgets (characters): a card stays readable and a 100 KB log line never reaches chat whole. */
export const CHAT_LIMITS = {
  title: 150,
  line: 300,
  evidenceLines: 5,
  listItems: 8,
  nextSteps: 4,
  /** The whole description, escaped: well under Slack's 40,000-character message text limit. */
  description: 4_000,
} as const;

const TITLE: Readonly<Record<NoticeKind, string>> = {
  'approval-pending': 'Approval needed',
  'needs-human': 'Needs a human',
  verified: 'Repaired and verified',
  closed: 'Closed',
  informational: 'Diagnosed',
};

const list = (label: string, items: readonly string[], item: (s: string) => string): string[] =>
  items.length
    ? [
        `${label}:`,
        ...firstOf(items, CHAT_LIMITS.listItems, (n) => `(${n} more in the summary)`).map((s) => `• ${item(s)}`),
      ]
    : [];

/** The card's description: cause, where, evidence (as code), checks, actions; within the budget. */
function description(n: IncidentNotice): string {
  const L = CHAT_LIMITS.line;
  const lines = [
    // Every text a principal or tenant can shape (a CloudTrail cause names a repository, a role, a
    // session) is a code span: a Markdown link, `@here` or `<!channel>` in it stays literal.
    ...(n.ask ? [`Asks: ${chatCode(n.ask, L)}`] : []),
    `Cause: ${chatCode(n.cause, L)}`,
    `Where: cluster ${chatCode(n.cluster, 100)}, ${chatCode(n.where, 200)}`,
    `Outcome: ${chatCode(n.headline, L)}`,
    ...(n.evidence.length
      ? [
          'Evidence:',
          ...firstOf(
            n.evidence.map((e) => chatCode(e, L)),
            CHAT_LIMITS.evidenceLines,
            (k) => `(${k} more lines in the summary)`,
          ),
        ]
      : []),
    ...list('Checks', n.findings, (s) => chatCode(s, L)),
    ...list('Actions', n.actions, (s) => chatCode(s, L)),
    ...n.links.map((l) => `${chatText(l.label, 40)}: ${chatText(l.url, 600)}`),
  ];
  const out: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > CHAT_LIMITS.description - 40) {
      out.push('(cut: the rest is in the summary)');
      break;
    }
    out.push(line);
    size += line.length + 1;
  }
  return out.join('\n');
}

/** The custom notification of a notice. */
export function chatCard(n: IncidentNotice): CustomNotification {
  const key = dedupKey(n.incidentId);
  return {
    version: '1.0',
    source: 'custom',
    id: `${key}/${n.kind}/${n.at}`,
    content: {
      textType: 'client-markdown',
      title: chatText(`pod-doctor · ${TITLE[n.kind]}: ${n.class} on ${n.cluster}/${n.where}`, CHAT_LIMITS.title),
      description: description(n),
      nextSteps: firstOf(n.nextSteps, CHAT_LIMITS.nextSteps, (k) => `(${k} more in the summary)`).map((s) =>
        chatText(s, CHAT_LIMITS.line),
      ),
      keywords: ['pod-doctor', n.class, n.kind].map((k) => chatText(k, 50)),
    },
    metadata: {
      threadId: key,
      summary: chatText(`${TITLE[n.kind]}: ${n.class} on ${n.cluster}`, CHAT_LIMITS.title),
      eventType: `pod-doctor ${n.kind}`,
      relatedResources: [n.cluster, n.where].map((r) => chatText(r, 200)),
      additionalContext: { incidentId: n.incidentId, class: n.class, kind: n.kind },
      enableCustomActions: false,
    },
  };
}
