import { describe, expect, it } from 'vitest';
import { MAX_SUBJECT, snsSubject } from '../../lambdas/core/text/sns-subject.js';
import { renderSummary } from '../../lambdas/core/voices/summary.js';

const base = {
  incident: {
    incidentId: 'inc-1',
    incidentKey: 'k',
    class: 'sandbox-image' as const,
    kind: 'failure' as const,
    cluster: 'prod-eu',
    scope: 'node',
    scopeValue: 'i-0a1b2c3d4e5f60718',
    cause: 'pause image gone',
    entities: { image: 'localhost/kubernetes/pause:latest' },
    firstSeen: '2026-11-29T10:00:00.000Z',
    samples: ['line one'],
    pods: ['default/web-1'],
    signals: ['kubernetes-events' as const, 'cloudtrail' as const],
  },
  findings: [
    {
      id: 'iam.node-role.ecr-read',
      status: 'fail' as const,
      summary: 'cannot pull',
      evidence: {},
      remediation: 'attach',
    },
  ],
  plannedActions: [],
  actions: [{ id: 'repair-pause-image', commandId: 'c-1', status: 'Success', outputExcerpt: '{"status":"repaired"}' }],
  outcome: 'repaired and verified',
  nextStep: 'none',
  recommendations: ['attach AmazonEC2ContainerRegistryPullOnly to the node role'],
  reasons: [],
  executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
  region: 'eu-west-1',
};

describe('incident summary', () => {
  it("links the execution in the console of the execution's own Region, whatever Region the incident names", () => {
    const s = renderSummary({ ...base, region: 'us-east-1' });
    expect(s.text).toContain('https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/');
    expect(s.text).not.toContain('us-east-1.console');
  });

  it('names an image, a registry or a subnet whole in the subject; only a node is cut to its host name', () => {
    const image = (scopeValue: string) =>
      renderSummary({ ...base, incident: { ...base.incident, class: 'image-not-found', scope: 'image', scopeValue } });
    expect(image('nginx:1.27.99').subject).toContain('image-not-found on prod-eu/nginx:1.27.99:');
    expect(image('registry-1.docker.io').subject).toContain('on prod-eu/registry-1.docker.io:');
    const node = renderSummary({
      ...base,
      node: { instanceId: 'i-0a1b2c3d4e5f60718', privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
    });
    expect(node.subject).toContain('on prod-eu/ip-10-0-12-34:');
  });

  it('names the signals the incident came from in the e-mail, the Markdown and the JSON', () => {
    const s = renderSummary(base);
    expect(s.markdown).toContain('- **Signals:** `kubernetes-events`, `cloudtrail`');
    expect(s.json.signals).toEqual(['kubernetes-events', 'cloudtrail']);
    const none = renderSummary({ ...base, incident: { ...base.incident, signals: [] } });
    expect(none.text).not.toContain('SIGNALS');
    expect(none.markdown).not.toContain('Signals');
  });

  it('keeps the subject under 100 characters (SNS refuses 100) when the raw subject is exactly 100', () => {
    const raw = `[pod-doctor] sandbox-image on prod-eu/i-0a1b2c3d4e5f60718: `;
    const s = renderSummary({ ...base, outcome: 'x'.repeat(100 - raw.length) });
    expect(s.subject.length).toBeLessThan(100);
    expect(s.subject.endsWith('...')).toBe(true);
    expect(snsSubject('y'.repeat(99))).toBe('y'.repeat(99));
    expect(MAX_SUBJECT).toBe(99);
  });

  it('keeps the subject within 100 ASCII characters whatever the names', () => {
    const long = renderSummary({
      ...base,
      incident: { ...base.incident, cluster: `very-long-cluster-${'x'.repeat(80)}` },
      outcome: 'repaired but not verified: ünïcode and a\nnewline',
    });
    expect(long.subject.length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(long.subject).toMatch(/^[\x20-\x7e]+$/);
  });

  it('says what failed, where, the evidence, each check and action, the outcome, the next step and the console link', () => {
    const s = renderSummary(base);
    for (const part of [
      'WHAT FAILED   sandbox-image: pause image gone',
      'PODS          default/web-1',
      'IMAGE         localhost/kubernetes/pause:latest',
      'SIGNALS       kubernetes-events, cloudtrail',
      '  line one',
      'FAIL  iam.node-role.ecr-read: cannot pull',
      'repair-pause-image: Success (SSM command c-1)',
      'OUTCOME       repaired and verified',
      'NEXT STEP     none',
      '  - attach AmazonEC2ContainerRegistryPullOnly to the node role',
    ]) {
      expect(s.text).toContain(part);
    }
    expect(s.text).toContain(
      'https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/arn%3Aaws%3Astates',
    );
    expect(s.markdown).toContain('| fail | `iam.node-role.ecr-read` | cannot pull |');
    expect(s.json).toMatchObject({ outcome: 'repaired and verified', actions: base.actions });
  });

  it('names every approval an incident needed, what each was for, and how many of them were given', () => {
    const by = { sourceIp: '203.0.113.10', userAgent: 'Mozilla/5.0' };
    const approvals = [
      { for: 'attach-managed-policy', approved: true, decidedAt: '2026-11-29T10:05:01.000Z', decidedBy: by },
      {
        for: 'restart-aws-node',
        approved: true,
        decidedAt: '2026-11-29T10:07:30.000Z',
        decidedBy: { sourceIp: '198.51.100.20', userAgent: 'curl' },
      },
    ];
    const s = renderSummary({ ...base, approvals });
    expect(s.text).toContain(
      'APPROVAL      2 of 2 required approvals given: attach-managed-policy approved at 2026-11-29T10:05:01.000Z from 203.0.113.10 (user agent Mozilla/5.0); restart-aws-node approved at 2026-11-29T10:07:30.000Z from 198.51.100.20 (user agent curl)',
    );
    expect(s.markdown).toContain('- **Approval:** 2 of 2 required approvals given: attach-managed-policy approved at');
    expect(s.json).toMatchObject({ approvals, approval: approvals[1] });

    const second = { for: 'restart-aws-node', approved: false, reason: 'no answer before the approval deadline' };
    const partly = renderSummary({ ...base, approvals: [approvals[0], second] });
    expect(partly.text).toMatch(
      /APPROVAL {6}1 of 2 required approvals given: attach-managed-policy approved at .*; restart-aws-node: no answer before the approval deadline\n/,
    );

    // One approval reads as it always did.
    const one = renderSummary({ ...base, approvals: [approvals[0]] });
    expect(one.text).toContain(
      'APPROVAL      approved at 2026-11-29T10:05:01.000Z from 203.0.113.10 (user agent Mozilla/5.0)\n',
    );
  });
});
