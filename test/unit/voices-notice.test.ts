import { describe, expect, it } from 'vitest';
import { dedupKey, PAGING_ACTION, runNoticeKind } from '../../lambdas/core/voices/notice.js';
import { approvalNotice, runNotice, StoredNoticeError } from '../../lambdas/core/voices/stored-notice.js';

/** Outcomes as summarize-outcome.ts writes them, and what each asks of a human. */
const OUTCOMES: [string, ReturnType<typeof runNoticeKind>][] = [
  ['repaired and verified', 'verified'],
  ['remedied and verified: attach AmazonEC2ContainerRegistryPullOnly to eks/node-role', 'verified'],
  ['attach-managed-policy verified; repaired and verified', 'verified'],
  ['collect-logs done; restart-runtime: repaired and verified', 'verified'],
  [
    'remedied and verified: attach AmazonEKS_CNI_Policy to aws-node; then delete pod kube-system/aws-node-7x2kq',
    'verified',
  ],
  ['repaired, verification failed: 3 new failure lines from the node', 'needs-human'],
  ['collect-logs done; restart-runtime: repaired, verification failed: PIDs still at 98%', 'needs-human'],
  ['attach-managed-policy rolled-back: the check still fails after the change', 'needs-human'],
  ['restart-aws-node rollback-failed: IrreversibleActionError', 'needs-human'],
  ['create-cidr-reservation failed: InvalidSubnet.Range', 'needs-human'],
  ['workflow failed', 'needs-human'],
  ['action failed (Failed)', 'needs-human'],
  ['action timed out', 'needs-human'],
  ['action not sent: AccessDeniedException', 'needs-human'],
  ['no action: blocked right before acting: kill switch is on', 'needs-human'],
  ['no action: node not reachable through SSM', 'needs-human'],
  ['no action: no answer before the approval deadline', 'needs-human'],
  ['collect-logs done; restart-runtime not run: no answer before the approval deadline', 'needs-human'],
  ['diagnosed; action blocked by safety policy', 'needs-human'],
  ['no action: rejected by the approver', 'closed'],
  ['collect-logs done; restart-runtime not run: rejected by the approver', 'closed'],
  ['attach-managed-policy verified; restart-runtime not run: rejected by the approver', 'closed'],
  ['diagnosed; action recommended', 'informational'],
  ['dry run: would attach AmazonEC2ContainerRegistryPullOnly to eks/node-role', 'informational'],
  ['diagnosed; no free aligned /28 is left: a reservation cannot help', 'informational'],
  ['collect-logs done', 'informational'],
];

describe('what a finished run asks of a human', () => {
  it.each(OUTCOMES)('%s → %s', (outcome, kind) => {
    expect(runNoticeKind(outcome)).toBe(kind);
  });

  it('text after a failure headline cannot turn it into a verified repair', () => {
    expect(runNoticeKind('attach-managed-policy failed: repaired and verified')).toBe('needs-human');
    expect(runNoticeKind('repaired, verification failed: remedied and verified')).toBe('needs-human');
  });

  it('an escalation class diagnosed without a fix needs a human; other classes only inform', () => {
    expect(runNoticeKind('diagnosed; action recommended', 'branch-eni')).toBe('needs-human');
    expect(runNoticeKind('collect-logs done', 'runtime-failure')).toBe('needs-human');
    expect(runNoticeKind('diagnosed; action recommended', 'image-not-found')).toBe('informational');
    expect(runNoticeKind('repaired and verified', 'runtime-failure')).toBe('verified');
  });

  it('pages on what needs a human, resolves what is done, and stays quiet otherwise', () => {
    expect(PAGING_ACTION).toEqual({
      'approval-pending': 'trigger',
      'needs-human': 'trigger',
      verified: 'resolve',
      closed: 'resolve',
      informational: null,
    });
  });
});

describe('one key per incident', () => {
  it('is the incident id, safe in a URL path', () => {
    expect(dedupKey('3f9a0c1d2e4b5a69-1795860000')).toBe('pod-doctor-3f9a0c1d2e4b5a69-1795860000');
  });

  it('hashes an id that is not path-safe instead of passing it on', () => {
    const key = dedupKey('../../alerts/x?identifierType=id');
    expect(key).toMatch(/^pod-doctor-[0-9a-f]{32}$/);
    expect(dedupKey('../../alerts/x?identifierType=id')).toBe(key);
  });
});

const AT = new Date('2026-11-29T10:07:00Z');
const row = {
  pk: 'INCIDENT#prod-eu|node:ip-10-0-12-34|sandbox-image',
  sk: 'RUN#1795860000000#3f9a0c1d2e4b5a69-1795860000',
  incidentId: '3f9a0c1d2e4b5a69-1795860000',
  class: 'sandbox-image',
  cluster: 'prod-eu',
  outcome: 'repaired, verification failed: 2 new failure lines from the node',
  decision: 'act',
  executionArn: 'arn:aws:states:eu-west-1:111122223333:execution:wf:3f9a0c1d2e4b5a69-1795860000',
  summaryJson: 's3://evidence/incidents/3f9a0c1d2e4b5a69-1795860000/x/summary.json',
  closedAt: 1795860420000,
};
const summary = {
  cause: 'failed to get sandbox image "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5": 401 Unauthorized',
  node: { instanceId: 'i-0a1b2c3d4e5f60718', privateDnsName: 'ip-10-0-12-34.eu-west-1.compute.internal' },
  evidence: ['Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image'],
  findings: [
    { id: 'iam.node-role.ecr-read', status: 'pass', summary: 'node role may pull from ECR' },
    { id: 'node.pause-image', status: 'fail', summary: 'pause image missing from the node' },
  ],
  actions: [{ id: 'repair-pause-image', status: 'Success' }],
  nextStep: 'replace the node',
  recommendations: ['check image garbage collection thresholds'],
  consoleLink: 'https://eu-west-1.console.aws.amazon.com/states/home?region=eu-west-1#/v2/executions/details/x',
};

describe('notices from what the workflow stored', () => {
  it('a run: the cause in one sentence with the first failing check, where, evidence and the outcome', () => {
    const n = runNotice(row, summary, AT);
    expect(n).toMatchObject({
      kind: 'needs-human',
      incidentId: row.incidentId,
      where: 'ip-10-0-12-34.eu-west-1.compute.internal',
      headline: row.outcome,
      findings: ['FAIL node.pause-image: pause image missing from the node'],
      actions: ['repair-pause-image: Success'],
      nextSteps: ['replace the node', 'check image garbage collection thresholds'],
      at: '2026-11-29T10:07:00.000Z',
    });
    expect(n.cause).toBe(`sandbox-image: ${summary.cause}; node.pause-image: pause image missing from the node`);
    expect(n.links.map((l) => l.label)).toEqual(['execution', 'summary']);
  });

  it('a pending approval: what waits, until when, and where to decide (never the signed link)', () => {
    const n = approvalNotice(
      {
        pk: 'APPROVAL#6c1f',
        incidentId: row.incidentId,
        class: 'pid-exhaustion',
        cluster: 'prod-eu',
        where: 'ip-10-0-12-34.eu-west-1.compute.internal',
        action: 'restart-runtime',
        page: 'pod-doctor asks before acting on incident x (pid-exhaustion).\n\nPLAN      restart kubelet and containerd\n\nEVIDENCE\n  FAIL node.pids: PID use at 97%\n  PASS other: fine',
        cause: 'the shim cannot fork: resource temporarily unavailable',
        evidence: [
          'failed to start shim: fork/exec /usr/bin/containerd-shim-runc-v2: resource temporarily unavailable',
        ],
        exp: Date.parse('2026-11-29T11:07:00Z'),
        taskToken: 'AQCE-secret-task-token',
      },
      AT,
    );
    expect(n.kind).toBe('approval-pending');
    expect(n.headline).toBe('approval needed: restart-runtime on prod-eu/ip-10-0-12-34.eu-west-1.compute.internal');
    // The cause is the failure's and the evidence shows it; the ask is its own field.
    expect(n.cause).toBe(
      'pid-exhaustion: the shim cannot fork: resource temporarily unavailable; node.pids: PID use at 97%',
    );
    expect(n.ask).toBe('pod-doctor asks before it runs restart-runtime: restart kubelet and containerd');
    expect(n.evidence).toEqual([
      'failed to start shim: fork/exec /usr/bin/containerd-shim-runc-v2: resource temporarily unavailable',
    ]);
    expect(n.findings).toEqual(['FAIL node.pids: PID use at 97%']);
    expect(n.nextSteps[0]).toContain('before 2026-11-29T11:07:00.000Z (no answer = no action)');
    expect(JSON.stringify(n)).not.toContain('AQCE-secret-task-token');
  });

  it('a row without what a notice needs is a named error, never a guess', () => {
    expect(() => runNotice({ ...row, outcome: undefined }, summary, AT)).toThrow(StoredNoticeError);
    expect(() => runNotice(row, { evidence: 'not a list' }, AT)).toThrow(/summary of 3f9a0c1d2e4b5a69-1795860000/);
    expect(() => approvalNotice({ incidentId: 'x', page: '' }, AT)).toThrow(StoredNoticeError);
  });

  it('a 100 KB evidence line is kept bounded in the notice', () => {
    const n = runNotice(row, { ...summary, evidence: ['x'.repeat(100_000), ...Array(30).fill('y')] }, AT);
    expect(n.evidence).toHaveLength(10);
    expect(n.evidence[0]).toHaveLength(2_000);
  });
});
