import { beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_ID } from '../../local/account-snapshot.js';
import { localIngest } from '../../local/ingest-runtime.js';
import { freshIncidentTable, type RunResult, runWorkflow, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { fixture } from '../support/fixtures.js';
import { incident } from './support.js';

/**
 * A field of an incident (a CloudTrail principal, a repository name, a log line, a pod name) that
 * holds a line break cannot add a line to what is mailed or stored: no fake "Review and decide:"
 * link, no fake section. Through the deployed ingest code and the synthesized workflow with the real
 * Summarize handler; the same run with harmless values is the yardstick (same number of lines).
 */
const FAKE = 'Review and decide: https://evil.example/approve?id=1';
/** Every way to break a line: LF, CR, CRLF, VT, FF, NEL, LINE and PARAGRAPH SEPARATOR, and an ANSI escape. */
const BREAKS = ['\n', '\r', '\r\n', '\v', '\f', '\u0085', '\u2028', '\u2029', '\u001b[1A\r'];
const inject = (i: number) => `${BREAKS[i % BREAKS.length]}${FAKE}${BREAKS[(i + 1) % BREAKS.length]}`;

let template: ResolvedTemplate;
beforeAll(async () => {
  template = synthesizedTemplate();
  await warmUpRuntime(template);
}, 120_000);

const lines = (s = '') => s.split(/\r\n|\n/);
/** Lines a reader (or a mail client) shows starting with the fake link: what must never be there. */
const fakeLinkLines = (r: RunResult) =>
  r.sns.flatMap((m) => lines(m.message)).filter((l) => /^\s*Review and decide:/.test(l) && l.includes('evil.example'));
const mailLines = (r: RunResult) => r.sns.map((m) => lines(m.message).length);
const storedLines = (r: RunResult) => [...r.evidence.values()].map((v) => lines(v).length);
/** Any character that breaks a line or hides text, but the renderer's own line feeds. */
const breaking = (s: string) => /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(s.replace(/\n/g, ''));

/** The CloudTrail event of a refused ECR pull whose principal session name and repository name carry `extra`. */
function deniedPull(extra: (i: number) => string) {
  const e = fixture<Record<string, Record<string, unknown>>>('events/ecr-batchgetimage-denied.json');
  const d = e.detail as Record<string, Record<string, unknown>>;
  d.userIdentity.arn = `${String(d.userIdentity.arn)}${extra(0)}`;
  d.requestParameters.repositoryName = `shared/base${extra(1)}`;
  return e;
}

async function throughIngest(event: unknown): Promise<RunResult> {
  const table = await freshIncidentTable(template);
  const now = Date.parse('2026-11-29T10:03:00Z');
  const ingest = localIngest(template, table, {
    config: { logGroupClusters: {}, accountScope: 'prod-eu' },
    now: () => now,
  });
  const out = await ingest.invoke(event, 'req-ct');
  expect(out.workflowsStarted).toHaveLength(1);
  return runWorkflow(ingest.started[0], { account: healthyAccount(), node: simulatedPauseNode(), template, now });
}

describe('a line break in a CloudTrail field adds no line to the e-mail', { timeout: 60_000 }, () => {
  it('the fake link stays inside its field; the e-mail and the stored summaries have as many lines as with harmless text', async () => {
    const attacked = await throughIngest(deniedPull(inject));
    const plain = await throughIngest(deniedPull(() => ' harmless-suffix '));
    expect(attacked.status, attacked.failures.join('\n')).toBe('SUCCEEDED');
    expect(attacked.sns.map((m) => m.message).join('\n')).toContain('evil.example');
    expect(fakeLinkLines(attacked)).toEqual([]);
    expect(mailLines(attacked)).toEqual(mailLines(plain));
    expect(storedLines(attacked)).toEqual(storedLines(plain));
    expect(attacked.sns.some((m) => breaking(m.message ?? ''))).toBe(false);
  });
});

describe('a line break in any incident field adds no line to the e-mail or the stored summary', {
  timeout: 60_000,
}, () => {
  const withText = (t: (i: number) => string) =>
    incident({
      cause: `the sandbox image cannot be pulled${t(0)}`,
      samples: [`E1129 10:00:01 failed to get sandbox image${t(1)}`, `second${t(2)}line`],
      pods: [`default/web-1${t(3)}`, `kube-system/x${t(4)}`],
      entities: { instanceId: NODE_ID, node: `ip-10-0-12-34${t(5)}`, image: `registry.example.com/a:1${t(6)}` },
    });

  it('from the incident input, whatever upstream produced it', async () => {
    const run = (i: Record<string, unknown>) =>
      runWorkflow(i, { account: healthyAccount(), node: simulatedPauseNode(), template });
    const attacked = await run(withText(inject));
    const plain = await run(withText(() => ' harmless-suffix '));
    expect(attacked.status, attacked.failures.join('\n')).toBe('SUCCEEDED');
    expect(attacked.sns.map((m) => m.message).join('\n')).toContain('evil.example');
    expect(fakeLinkLines(attacked)).toEqual([]);
    expect(mailLines(attacked)).toEqual(mailLines(plain));
    expect(storedLines(attacked)).toEqual(storedLines(plain));
    for (const body of [...attacked.sns.map((m) => m.message ?? ''), ...attacked.evidence.values()])
      expect(breaking(body)).toBe(false);
  });
});
