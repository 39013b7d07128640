import { describe, expect, it } from 'vitest';
import { CHAT_LIMITS, chatCard } from '../../lambdas/core/voices/chat-card.js';
import type { IncidentNotice, NoticeKind } from '../../lambdas/core/voices/notice.js';
import { pagingDetail } from '../../lambdas/core/voices/paging.js';
import {
  chatCardProblems,
  opsgenieCloseProblems,
  opsgenieCreateProblems,
  pagerDutyProblems,
} from '../support/vendor-schemas.js';

/** Log text a tenant controls, with every kind of markup chat and pagers read. */
const HOSTILE = [
  '<!channel> <!here> <@U0123ABCD> <!subteam^S123|@oncall> please look',
  '**bold** _it_ ~strike~ `code` [click](https://evil.example/x) <https://evil.example|docs>',
  '<script>alert(1)</script><img src=x onerror=alert(2)> &amp; <at>Everyone</at>',
  '# heading\n> quote\n```\nfenced\n```',
];

const notice = (kind: NoticeKind, over: Partial<IncidentNotice> = {}): IncidentNotice => ({
  kind,
  incidentId: '3f9a0c1d2e4b5a69-1795860000',
  class: 'sandbox-image',
  cluster: 'prod-eu',
  where: 'ip-10-0-12-34.eu-west-1.compute.internal',
  headline: 'repaired, verification failed: 2 new failure lines from the node',
  cause: 'sandbox-image: failed to get sandbox image: 401 Unauthorized; node.pause-image: missing',
  evidence: HOSTILE,
  findings: ['FAIL node.pause-image: pause image missing from the node'],
  actions: ['repair-pause-image: Success'],
  nextSteps: ['replace the node'],
  links: [
    { label: 'execution', url: 'https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/x' },
    { label: 'summary', url: 's3://evidence/incidents/x/summary.json' },
  ],
  at: '2026-11-29T10:07:00.000Z',
  ...over,
});

const KINDS: NoticeKind[] = ['approval-pending', 'needs-human', 'verified', 'closed', 'informational'];

describe('chat card (Amazon Q Developer custom notification)', () => {
  it.each(KINDS)('%s: valid against the documented event schema', (kind) => {
    expect(chatCardProblems(chatCard(notice(kind)))).toEqual([]);
  });

  it('threads every notice of one incident together, and no two incidents', () => {
    const a = chatCard(notice('approval-pending'));
    const b = chatCard(notice('verified'));
    const other = chatCard(notice('verified', { incidentId: '0000aaaa1111bbbb-1795860001' }));
    expect(a.metadata.threadId).toBe(b.metadata.threadId);
    expect(other.metadata.threadId).not.toBe(a.metadata.threadId);
  });

  it('no mention, link or tag from a log line survives as markup', () => {
    const text = JSON.stringify(chatCard(notice('needs-human')).content);
    for (const raw of ['<!channel>', '<!here>', '<@U0123ABCD>', '<!subteam', '<https://', '<script>', '<img', '<at>'])
      expect(text).not.toContain(raw);
    expect(text).toContain('&lt;!channel&gt;');
    // Markdown from the log stays inside code spans: every evidence line is one span, on one line.
    const evidence = chatCard(notice('needs-human'))
      .content.description.split('\n')
      .filter((l) => l.startsWith('`'));
    expect(evidence).toHaveLength(HOSTILE.length);
    for (const line of evidence) expect(line).toMatch(/^`[^`]*`$/);
  });

  it('a 100 KB line and a 500-line storm stay within the card budget, and say where the rest is', () => {
    const card = chatCard(
      notice('needs-human', {
        evidence: ['E'.repeat(100_000), ...Array.from({ length: 500 }, (_, i) => `line ${i}`)],
        findings: Array.from({ length: 40 }, (_, i) => `FAIL check.${i}: ${'z'.repeat(400)}`),
      }),
    );
    expect(card.content.description.length).toBeLessThanOrEqual(CHAT_LIMITS.description);
    expect(card.content.description).toContain('more lines in the summary');
    expect(card.content.description).not.toContain('E'.repeat(CHAT_LIMITS.line + 1));
    expect(chatCardProblems(card)).toEqual([]);
  });

  it('offers no action buttons: chat reads, the approval stays with the signed e-mail link', () => {
    expect(chatCard(notice('approval-pending')).metadata.enableCustomActions).toBe(false);
  });
});

describe('paging payloads', () => {
  it('approval pending and needs-human trigger; verified and closed resolve; informational pages nobody', () => {
    expect(KINDS.map((k) => pagingDetail(notice(k))?.action ?? null)).toEqual([
      'trigger',
      'trigger',
      'resolve',
      'resolve',
      null,
    ]);
  });

  it.each(['approval-pending', 'needs-human', 'verified', 'closed'] as const)(
    '%s: PagerDuty Events API v2 and Opsgenie bodies are valid against the published schemas and limits',
    (kind) => {
      const d = pagingDetail(notice(kind));
      expect(d).toBeDefined();
      if (!d) return;
      expect(pagerDutyProblems({ ...d.pagerduty })).toEqual([]);
      expect(opsgenieCreateProblems({ ...d.opsgenie.create })).toEqual([]);
      expect(opsgenieCloseProblems({ ...d.opsgenie.close })).toEqual([]);
    },
  );

  it('one dedup key per incident, for trigger and resolve, PagerDuty and Opsgenie alike', () => {
    const t = pagingDetail(notice('needs-human'));
    const r = pagingDetail(notice('verified'));
    expect(t?.pagerduty.dedup_key).toBe('pod-doctor-3f9a0c1d2e4b5a69-1795860000');
    expect(r?.pagerduty.dedup_key).toBe(t?.pagerduty.dedup_key);
    expect(t?.opsgenie.create.alias).toBe(t?.dedupKey);
    expect(r?.dedupKey).toBe(t?.dedupKey);
  });

  it('carries no credential: the connection adds the routing key and the GenieKey header', () => {
    const text = JSON.stringify(pagingDetail(notice('needs-human')));
    expect(text).not.toMatch(/routing_key|GenieKey|Authorization/);
  });

  it('links only to https pages (the summary in S3 is named in the details, not linked)', () => {
    const pd = pagingDetail(notice('needs-human'))?.pagerduty;
    expect(pd?.links?.map((l) => l.href)).toEqual([notice('needs-human').links[0].url]);
    expect(pd?.client_url).toBe(notice('needs-human').links[0].url);
  });

  it('escapes markup for Opsgenie, which renders HTML, and only markup: quotes stay quotes', () => {
    const og = pagingDetail(notice('needs-human', { cause: 'failed to get sandbox image "pause:3.5": 401' }))?.opsgenie
      .create;
    expect(og?.description).not.toMatch(/<script>|<img|<at>|<!channel>/);
    expect(og?.description).toContain('&lt;script&gt;');
    expect(og?.description).toContain('Cause: failed to get sandbox image "pause:3.5": 401');
    expect(JSON.stringify(og)).not.toContain('&quot;');
  });

  it("PagerDuty's class is the failure class; what the notice means is in the details", () => {
    const pd = pagingDetail(notice('needs-human'))?.pagerduty.payload;
    expect(pd?.class).toBe('sandbox-image');
    expect(pd?.component).toBe('ip-10-0-12-34.eu-west-1.compute.internal');
    expect(pd?.custom_details.kind).toBe('needs-human');
  });

  it('an approval card and page carry the ask apart from the cause and its evidence', () => {
    const n = notice('approval-pending', { ask: 'pod-doctor asks before it runs restart-runtime: restart kubelet' });
    const lines = chatCard(n).content.description.split('\n');
    expect(lines[0]).toBe('Asks: `pod-doctor asks before it runs restart-runtime: restart kubelet`');
    expect(lines[1]).toMatch(/^Cause: `sandbox-image: failed to get sandbox image/);
    expect(lines).toContain('Evidence:');
    const d = pagingDetail(n);
    expect(d?.pagerduty.payload?.custom_details.ask).toBe(n.ask);
    expect(d?.opsgenie.create.description.split('\n')[0]).toBe(`Asks: ${n.ask}`);
  });

  it('with 100 KB of evidence the event stays far under EventBridge’s 256 KB and each pager’s limits', () => {
    const d = pagingDetail(notice('needs-human', { evidence: ['E'.repeat(100_000), 'F'.repeat(100_000)] }));
    expect(Buffer.byteLength(JSON.stringify(d))).toBeLessThan(32 * 1024);
    expect(pagerDutyProblems({ ...d?.pagerduty })).toEqual([]);
    expect(opsgenieCreateProblems({ ...d?.opsgenie.create })).toEqual([]);
  });

  it('the schema check is not vacuous: a body PagerDuty or Opsgenie refuses is reported', () => {
    expect(pagerDutyProblems({ event_action: 'page', dedup_key: 'x' })).not.toEqual([]);
    expect(pagerDutyProblems({ event_action: 'trigger', payload: { summary: 's', source: 'x' } })).not.toEqual([]);
    expect(opsgenieCreateProblems({ alias: 'x' })).not.toEqual([]);
    expect(opsgenieCreateProblems({ message: 'm'.repeat(131) })).not.toEqual([]);
    expect(chatCardProblems({ version: '1.0', source: 'custom', content: { title: 't' } })).not.toEqual([]);
  });
});

describe('principal-controlled text renders as text in a chat card (issue 34)', () => {
  // A CloudTrail cause names the repository a principal created: its name is the principal's text.
  const cause =
    'DeleteRepository of [approve here](https://evil.example/x) @here <!channel> *urgent* `x` by arn:aws:iam::111122223333:user/mallory';
  const lines = () =>
    chatCard(
      notice('needs-human', { cause, headline: cause, findings: [cause], actions: [cause] }),
    ).content.description.split('\n');

  it('the cause, outcome, checks and actions are code spans: no link, mention or markup outside them', () => {
    for (const line of lines().filter((l) => /evil\.example/.test(l))) {
      // What is left outside code spans is pod-doctor's own label.
      const outside = line.replace(/`[^`]*`/g, '');
      expect(outside).not.toMatch(/\]\(|@here|<!channel>|&lt;!channel&gt;|\*urgent\*/);
      expect(line).not.toContain('<!channel>');
    }
    expect(lines().filter((l) => /evil\.example/.test(l)).length).toBeGreaterThanOrEqual(4);
  });
});
