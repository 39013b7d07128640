import '../support/deployed-env.js';
import { Readable } from 'node:stream';
import { GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NoticeEvent } from '../../lambdas/aws/voices/notices.js';
import { approvalKey, incidentRunKey, openIncidentKey } from '../../lambdas/core/contract/incident-table.js';
import { StoredNoticeError } from '../../lambdas/core/voices/stored-notice.js';
import { createHandler } from '../../lambdas/handlers/notices.js';
import { lambdaContext } from '../support/lambda-context.js';
import { leakedIn, secretCorpus } from '../support/secrets.js';
import { chatCardProblems, opsgenieCreateProblems, pagerDutyProblems } from '../support/vendor-schemas.js';

const BUCKET = 'pod-doctor-evidence-1a2b3c';
const NOW = Date.parse('2026-11-29T10:07:00Z');
const INCIDENT = '3f9a0c1d2e4b5a69-1795860000';
const KEY = 'prod-eu|node:ip-10-0-12-34.eu-west-1.compute.internal|sandbox-image';
const SUMMARY_KEY = `incidents/${INCIDENT}/${INCIDENT}/summary.json`;

const s3 = new S3Client({ region: 'eu-west-1' });
const s3Mock = mockClient(s3);
let warnings: string[] = [];
const handler = createHandler(() => ({
  s3,
  evidenceBucket: BUCKET,
  now: () => NOW,
  warn: (m) => {
    warnings.push(m);
  },
}));
const invoke = (records: unknown[]) => handler(records, lambdaContext('notices')) as Promise<NoticeEvent[]>;

/** A stream record as DynamoDB Streams writes it (NEW_IMAGE view) and the pipe passes it on. */
const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', item: Record<string, unknown>) => ({
  eventID: 'c81e728d9d4c2f636f067f89cc14862c',
  eventName,
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'eu-west-1',
  dynamodb: {
    ApproximateCreationDateTime: NOW / 1000,
    Keys: marshall({ pk: item.pk, sk: item.sk }),
    NewImage: marshall(item, { removeUndefinedValues: true }),
    SequenceNumber: '111100000000000000000001',
    SizeBytes: 512,
    StreamViewType: 'NEW_IMAGE',
  },
  eventSourceARN: 'arn:aws:dynamodb:eu-west-1:111122223333:table/incidents/stream/2026-11-29T00:00:00.000',
});

const runRow = (outcome: string, over: Record<string, unknown> = {}) => ({
  ...incidentRunKey(KEY, NOW - 420_000, INCIDENT),
  incidentId: INCIDENT,
  class: 'sandbox-image',
  cluster: 'prod-eu',
  outcome,
  decision: 'act',
  executionArn: `arn:aws:states:eu-west-1:111122223333:execution:wf:${INCIDENT}`,
  summaryJson: `s3://${BUCKET}/${SUMMARY_KEY}`,
  summaryMarkdown: `s3://${BUCKET}/incidents/${INCIDENT}/${INCIDENT}/summary.md`,
  closedAt: NOW,
  expiresAt: NOW / 1000 + 86_400,
  ...over,
});

const summary = (evidence: string[]) => ({
  incidentId: INCIDENT,
  class: 'sandbox-image',
  cause: 'failed to get sandbox image "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5": 401 Unauthorized',
  cluster: 'prod-eu',
  node: { instanceId: 'i-0a1b2c3d4e5f60718', privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
  evidence,
  findings: [{ id: 'node.pause-image', status: 'fail', summary: 'pause image missing' }],
  actions: [{ id: 'repair-pause-image', status: 'Success' }],
  nextStep: 'replace the node',
  recommendations: [],
  consoleLink: 'https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/x',
});

const body = (s: string) => sdkStreamMixin(Readable.from([Buffer.from(s)]));

beforeEach(() => {
  s3Mock.reset();
  warnings = [];
  s3Mock.on(GetObjectCommand, { Bucket: BUCKET, Key: SUMMARY_KEY }).callsFake(() => ({
    Body: body(JSON.stringify(summary(['Failed to create pod sandbox: <!channel> 401 Unauthorized']))),
  }));
});

describe('notices pipe enrichment: incident-table stream records → notice events', () => {
  it('a run that needs a human: a chat card and both pagers’ trigger bodies, valid for each vendor', async () => {
    const [e, ...rest] = await invoke([record('INSERT', runRow('repaired, verification failed: 2 new lines'))]);
    expect(rest).toEqual([]);
    expect(e.notice).toMatchObject({
      kind: 'needs-human',
      incidentId: INCIDENT,
      where: 'ip-10-0-12-34.eu-west-1.compute.internal',
    });
    expect(chatCardProblems(e.chat)).toEqual([]);
    expect(e.chat.content.description).toContain('&lt;!channel&gt;');
    expect(e.paging?.action).toBe('trigger');
    expect(pagerDutyProblems({ ...e.paging?.pagerduty })).toEqual([]);
    expect(opsgenieCreateProblems({ ...e.paging?.opsgenie.create })).toEqual([]);
    expect(s3Mock.commandCalls(GetObjectCommand)[0].args[0].input.Range).toBe('bytes=0-1048575');
  });

  it('a verified run resolves the incident’s alert with the same key', async () => {
    const [t] = await invoke([record('INSERT', runRow('repaired, verification failed: x'))]);
    const [r] = await invoke([record('INSERT', runRow('repaired and verified'))]);
    expect(r.paging?.action).toBe('resolve');
    expect(r.paging?.pagerduty).toEqual({ event_action: 'resolve', dedup_key: t.paging?.dedupKey });
    expect(r.chat.metadata.threadId).toBe(t.chat.metadata.threadId);
  });

  it('a pending approval: a card and a page, never the task token', async () => {
    const [e] = await invoke([
      record('INSERT', {
        ...approvalKey('6c1f0d5e-9a7b-4c3d-8e2f-1a0b9c8d7e6f'),
        taskToken: 'AQCE-secret-task-token',
        incidentId: INCIDENT,
        class: 'pid-exhaustion',
        cluster: 'prod-eu',
        where: 'ip-10-0-12-34.eu-west-1.compute.internal',
        action: 'restart-runtime',
        page: 'pod-doctor asks before acting.\n\nPLAN      restart kubelet and containerd',
        exp: NOW + 3_600_000,
        expiresAt: NOW / 1000 + 90_000,
      }),
    ]);
    expect(e.notice.kind).toBe('approval-pending');
    expect(e.paging?.action).toBe('trigger');
    expect(JSON.stringify(e)).not.toContain('AQCE-secret-task-token');
  });

  it('only first writes of runs and approvals speak: updates, deletes and other rows say nothing', async () => {
    const out = await invoke([
      record('MODIFY', runRow('repaired and verified')),
      record('REMOVE', runRow('repaired and verified')),
      record('INSERT', { ...openIncidentKey(KEY), incidentId: INCIDENT, occurrences: 400 }),
    ]);
    expect(out).toEqual([]);
    expect(s3Mock.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('a summary that is gone still gives a notice from the row, and says so', async () => {
    s3Mock.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }));
    const [e] = await invoke([record('INSERT', runRow('action timed out'))]);
    expect(e.notice.kind).toBe('needs-human');
    expect(e.notice.where).toBe('prod-eu');
    expect(warnings).toEqual(['summary unreadable: the notice names only what the history row says']);
  });

  it('never reads a summary outside the evidence bucket', async () => {
    const [e] = await invoke([
      record('INSERT', runRow('repaired and verified', { summaryJson: 's3://other/incidents/x.json' })),
    ]);
    expect(e.notice.kind).toBe('verified');
    expect(s3Mock.commandCalls(GetObjectCommand)).toHaveLength(0);
    expect(warnings).toEqual(['history row links no summary in the evidence bucket']);
  });

  it('a row that cannot make a notice fails the batch by name (the pipe retries, then keeps it)', async () => {
    await expect(invoke([record('INSERT', runRow('repaired and verified', { class: undefined }))])).rejects.toThrow(
      StoredNoticeError,
    );
  });

  it('no secret from a log line reaches a chat card or a page (every notice string is redacted first)', async () => {
    const corpus = secretCorpus();
    s3Mock.on(GetObjectCommand).callsFake(() => ({ Body: body(JSON.stringify(summary(corpus.map((c) => c.line)))) }));
    const events = await invoke([record('INSERT', runRow('workflow failed'))]);
    // Each evidence line is cut to a card's budget: check every line alone too, so none is cut before its secret.
    const one: string[] = [];
    for (const c of corpus) {
      s3Mock.on(GetObjectCommand).callsFake(() => ({ Body: body(JSON.stringify(summary([c.line]))) }));
      one.push(JSON.stringify(await invoke([record('INSERT', runRow('workflow failed'))])));
    }
    expect(leakedIn(JSON.stringify(events), corpus)).toEqual([]);
    expect(one.flatMap((text) => leakedIn(text, corpus))).toEqual([]);
    expect(corpus.length).toBeGreaterThan(5);
  });

  it('100 KB of evidence: the card and the pages stay within their budgets', async () => {
    s3Mock
      .on(GetObjectCommand)
      .resolves({ Body: body(JSON.stringify(summary(['E'.repeat(100_000), 'F'.repeat(100_000)]))) });
    const [e] = await invoke([record('INSERT', runRow('workflow failed'))]);
    expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThan(48 * 1024);
    expect(chatCardProblems(e.chat)).toEqual([]);
    expect(pagerDutyProblems({ ...e.paging?.pagerduty })).toEqual([]);
  });
});
