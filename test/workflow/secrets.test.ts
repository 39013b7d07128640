import { beforeAll, describe, expect, it } from 'vitest';
import { healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import type { LocalIngest } from '../../local/ingest-runtime.js';
import { localIngest } from '../../local/ingest-runtime.js';
import { freshIncidentTable, type RunResult, runWorkflow } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { type ResolvedTemplate, synthesizedTemplate } from '../../local/template.js';
import { subscriptionEvent } from '../support/fixtures.js';
import { leakedIn, secretCorpus } from '../support/secrets.js';

/**
 * Every secret shape of the corpus (test/fixtures/secrets/secrets.jsonl), delivered as log lines of a
 * node, followed through the deployed ingest code (its role, dynalite, the evidence bucket, Step
 * Functions' StartExecution) and the synthesized workflow (every Task's real handler, SNS, S3,
 * DynamoDB): no secret value is stored, started or mailed.
 */
const secrets = secretCorpus();
const LOG_GROUP = '/aws/containerinsights/prod-eu/dataplane';
let template: ResolvedTemplate;
let ingest: LocalIngest;
let tableRows: string;
let runs: RunResult[];

/** A Container Insights dataplane record of the recorded node carrying `line`. */
const onNode = (line: string) =>
  JSON.stringify({ hostname: NODE_DNS, ec2_instance_id: NODE_ID, systemd_unit: 'kubelet.service', message: line });

beforeAll(async () => {
  template = synthesizedTemplate();
  const table = await freshIncidentTable(template);
  const now = Date.parse('2026-11-29T10:01:00Z');
  ingest = localIngest(template, table, {
    config: { logGroupClusters: { [LOG_GROUP]: 'prod-eu' }, accountScope: 'account' },
    now: () => now,
  });
  await ingest.invoke(
    subscriptionEvent(
      secrets.map((s) => onNode(s.line)),
      { logGroup: LOG_GROUP },
    ),
    'req-secrets',
  );
  // A log event the reader refuses (its message is not a string) is kept whole under rejected/.
  const broken = subscriptionEvent(['x'], { logGroup: LOG_GROUP });
  const batch = JSON.parse(
    (await import('node:zlib')).gunzipSync(Buffer.from(broken.awslogs.data, 'base64')).toString(),
  );
  batch.logEvents[0].message = { command: secrets.map((s) => s.line) };
  const { gzipSync } = await import('node:zlib');
  await ingest.invoke({ awslogs: { data: gzipSync(JSON.stringify(batch)).toString('base64') } }, 'req-broken');
  tableRows = JSON.stringify(await table.scan());
  runs = [];
  for (const input of ingest.started) {
    runs.push(
      await runWorkflow(input, { account: healthyAccount(), node: simulatedPauseNode(), template, now: now + 60_000 }),
    );
  }
}, 600_000);

describe('secrets in log lines are never stored, started or mailed', { timeout: 60_000 }, () => {
  it('the delivery opened incidents and started their workflows (the path was taken)', () => {
    expect(ingest.started.length).toBeGreaterThanOrEqual(4);
    expect(runs.every((r) => r.status === 'SUCCEEDED')).toBe(true);
    expect(runs.every((r) => r.sns.length > 0)).toBe(true);
  });

  it('the incident table holds none (open rows, workflow inputs)', () => {
    expect(tableRows).toContain('[REDACTED]');
    expect(leakedIn(tableRows, secrets)).toEqual([]);
  });

  it('the execution inputs hold none', () => {
    expect(leakedIn(JSON.stringify(ingest.started), secrets)).toEqual([]);
  });

  it('the rejected record kept in the evidence bucket holds none', () => {
    const rejected = [...ingest.objects].filter(([k]) => k.startsWith('rejected/'));
    expect(rejected).toHaveLength(1);
    expect(rejected[0][1]).toContain('[REDACTED]');
    expect(leakedIn(rejected[0][1], secrets)).toEqual([]);
  });

  it('the e-mails, the summaries in S3 and the history rows hold none', async () => {
    const mails = runs.flatMap((r) => r.sns.map((m) => `${m.subject}\n${m.message}`)).join('\n');
    const evidence = runs.flatMap((r) => [...r.evidence.values()]).join('\n');
    const rows = JSON.stringify(await Promise.all(runs.map((r) => r.table.scan())));
    expect(mails).toContain('[REDACTED]');
    expect(leakedIn(mails, secrets)).toEqual([]);
    expect(leakedIn(evidence, secrets)).toEqual([]);
    expect(leakedIn(rows, secrets)).toEqual([]);
  });
});
