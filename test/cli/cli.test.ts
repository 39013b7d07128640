import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../demo/scenarios.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { corpus } from '../support/fixtures.js';

function cli(args: string[], input?: string) {
  return spawnSync('node', ['--import', 'tsx', join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'), ...args], {
    input,
    encoding: 'utf8',
    cwd: PROJECT_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('pod-doctor CLI', () => {
  it('--help lists the subcommands that have landed', () => {
    const r = cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\s+classify\s+/m);
    expect(r.stdout).toMatch(/^\s+config\s+/m);
  });

  it('rejects an unknown command with exit code 2 and the usage', () => {
    const r = cli(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it('classify writes one JSON object per input line, in order, and survives malformed lines', () => {
    const lines = corpus();
    const cloudtrail = JSON.stringify(
      JSON.parse(
        readFileSync(join(PROJECT_ROOT, 'test/fixtures/events/create-eni-insufficient-addresses.json'), 'utf8'),
      ),
    );
    const input = [...lines.map((l) => l.line), '{"oops', '\u0000\u0001binary', cloudtrail, ''].join('\n');
    const r = cli(['classify'], input);
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(lines.length + 3);
    expect(out.slice(0, lines.length).map((o) => o.class)).toEqual(lines.map((l) => l.class));
    expect(out[lines.length]).toMatchObject({ class: 'unknown', error: expect.stringMatching(/invalid JSON/) });
    expect(out[lines.length + 1]).toMatchObject({ class: 'unknown' });
    expect(out[lines.length + 2]).toMatchObject({
      class: 'ip-exhaustion',
      entities: { subnetId: 'subnet-0a1b2c3d4e5f67890' },
    });
  });

  it('config prints the defaults and names a bad key', () => {
    expect(JSON.parse(cli(['config']).stdout)).toMatchObject({
      modes: { 'sandbox-image': 'auto' },
      limits: { incidentWindowMinutes: 30 },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'pod-doctor-cli-')), 'cdk.json');
    writeFileSync(
      file,
      JSON.stringify({ app: 'x', context: { 'pod-doctor': { modes: { 'sandbox-image': 'yolo' } } } }),
    );
    const bad = cli(['config', file]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('pod-doctor.modes.sandbox-image: "yolo" is not allowed');
  });
});

describe('pod-doctor demo', () => {
  type Rec = {
    scenario: string;
    class: string;
    signals: string[];
    outcome: string;
    node: string;
    approval?: string;
    actions: { id: string; status: string }[];
    findings: { id: string; status: string }[];
    incidents: { class: string; count: number }[];
    transitions: number;
    notices: { kind: string; chat: { metadata: { threadId: string } }; paging: Record<string, unknown> | null }[];
    clusterEvents: {
      regarding: string;
      type: string;
      reason: string;
      action: string;
      note: string;
      reportingController: string;
      count: number;
    }[];
  };
  let records: Record<string, Rec>;
  let status: number | null;
  let stderr: string;

  beforeAll(() => {
    const r = cli(['demo', '--all', '--json']);
    status = r.status;
    stderr = r.stderr;
    records = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec)
        .map((x) => [x.scenario, x]),
    );
    // Seventeen scenarios through the synthesized workflow: about a minute alone, several on a shared, loaded
    // machine (load 25 on 2 cores: 5 minutes and more).
  }, 900_000);

  const failing = (name: string) => records[name].findings.filter((f) => f.status === 'fail').map((f) => f.id);

  it('runs every scenario and every one meets its expectation', () => {
    expect(status, stderr).toBe(0);
    expect(Object.keys(records)).toEqual(SCENARIOS.map((s) => s.name));
    for (const s of SCENARIOS) {
      const r = records[s.name];
      expect(r.class, s.name).toBe(s.expect.class);
      expect(r.outcome, s.name).toBe(s.expect.outcome);
      // Every scenario with log lines ships them through the dataplane group.
      expect(r.signals, s.name).toEqual(s.expect.signals ?? ['dataplane-logs']);
      expect(failing(s.name), s.name).toEqual(expect.arrayContaining([...s.expect.failing]));
      expect(
        r.actions.map((a) => a.id),
        s.name,
      ).toEqual([
        ...(s.expect.remedy ? [s.expect.remedy].flat() : []),
        ...(s.expect.nodeAction ? [s.expect.nodeAction].flat() : []),
      ]);
    }
  });

  it('talks: a line per scenario on stderr as it finishes, in order, then the headline last', () => {
    const lines = stderr.trim().split('\n');
    const done = lines.filter((l) => /^[✓✗] \[\d+\/\d+\] /.test(l));
    expect(done.map((l) => l.split(' ')[2])).toEqual(SCENARIOS.map((s) => s.name));
    for (const [i, l] of done.entries()) {
      const r = records[SCENARIOS[i].name];
      expect(l).toContain(`${r.class}  `);
      expect(l).toContain(`→ ${r.outcome}`);
      expect(l).toMatch(/\(\d+\.\d s\)/);
    }
    expect(lines.findIndex((l) => /^demo stack: /.test(l))).toBeLessThan(lines.indexOf(done[0]));
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^${SCENARIOS.length} scenarios: \\d+ repaired and verified, \\d+ remedied, \\d+ diagnosed, \\d+ rolled back$`,
      ),
    );
    // No card or page reads ERR or ERROR where nothing failed.
    for (const r of Object.values(records)) expect(JSON.stringify(r.notices), r.scenario).not.toMatch(/\bERR(OR)?\b/);
  });

  it('each scenario shows the chat card and the page it would send: one thread and one key per incident', async () => {
    const { chatCardProblems, pagerDutyProblems, opsgenieCreateProblems } = await import(
      '../support/vendor-schemas.js'
    );
    const { runNoticeKind } = await import('../../lambdas/core/voices/notice.js');
    for (const s of SCENARIOS) {
      const r = records[s.name];
      const last = r.notices.at(-1);
      // The run's own notice comes last; approvals asked before it come first.
      expect(last?.kind, s.name).toBe(runNoticeKind(r.outcome, r.class));
      expect(new Set(r.notices.map((n) => n.chat.metadata.threadId)).size, s.name).toBe(1);
      expect(
        r.notices.slice(0, -1).every((n) => n.kind === 'approval-pending'),
        s.name,
      ).toBe(true);
      expect(r.notices.filter((n) => n.kind === 'approval-pending').length, s.name).toBe(
        r.approval ? r.notices.length - 1 : 0,
      );
      for (const n of r.notices) {
        expect(chatCardProblems(n.chat), s.name).toEqual([]);
        const p = n.paging as {
          action?: string;
          pagerduty?: Record<string, unknown>;
          opsgenie?: { create: Record<string, unknown> };
        } | null;
        if (!p) continue;
        expect(pagerDutyProblems({ ...p.pagerduty }), s.name).toEqual([]);
        if (p.action === 'trigger') expect(opsgenieCreateProblems({ ...p.opsgenie?.create }), s.name).toEqual([]);
      }
    }
    // A verified repair resolves; a failed verification pages.
    expect(records['pause-image-deleted-al2023'].notices.at(-1)?.paging).toMatchObject({ action: 'resolve' });
    expect(records['cni-policy-blocked-by-boundary'].notices.at(-1)?.paging).toMatchObject({ action: 'trigger' });
  });

  it('pause-image-deleted-al2023: repaired and verified on real containerd, a storm of 400 lines is one incident', () => {
    const r = records['pause-image-deleted-al2023'];
    expect(r).toMatchObject({
      node: 'real containerd',
      outcome: 'repaired and verified',
      actions: [{ id: 'repair-pause-image', status: 'Success' }],
    });
    expect(r.incidents).toEqual([expect.objectContaining({ class: 'sandbox-image', count: 400 })]);
    expect(r.transitions).toBeLessThan(50);
  });

  it('ecr-endpoint-sg-blocks-443: vpc.endpoint.sg-443 fails; the rule is added (demo approval, labelled) and verified; no node action', () => {
    expect(failing('ecr-endpoint-sg-blocks-443')).toContain('vpc.endpoint.sg-443');
    expect(records['ecr-endpoint-sg-blocks-443']).toMatchObject({
      actions: [{ id: 'add-sg-rule', status: 'verified' }],
      approval: expect.stringMatching(/given by the demo/),
    });
  });

  it('insufficient-cidr-blocks: free IPs pass, one aligned /28 left (warn), reserved for prefixes and verified', () => {
    const f = Object.fromEntries(records['insufficient-cidr-blocks'].findings.map((x) => [x.id, x.status]));
    expect(f).toMatchObject({ 'subnet.free-prefix-blocks': 'warn', 'subnet.free-ips': 'pass' });
    expect(records['insufficient-cidr-blocks'].actions).toEqual([
      { id: 'create-cidr-reservation', status: 'verified' },
    ]);
  });

  it('pause-401-missing-ecr-policy: the attributed detach is reverted and verified, then the pause repair gets its token', () => {
    const r = records['pause-401-missing-ecr-policy'];
    const f = Object.fromEntries(r.findings.map((x) => [x.id, x.status]));
    expect(f).toMatchObject({ 'iam.node-role.ecr-read': 'fail', 'change.recent': 'warn' });
    expect(r.actions).toEqual([
      { id: 'attach-managed-policy', status: 'verified' },
      { id: 'repair-pause-image', status: 'Success' },
    ]);
  });

  it('ipamd-unreachable: aws-node restarted on the resolved node through the local Kubernetes API (demo approval, labelled), verified, then logs collected', () => {
    const r = records['ipamd-unreachable'];
    expect(r.actions).toEqual([
      { id: 'restart-aws-node', status: 'verified' },
      { id: 'collect-logs', status: 'Success' },
    ]);
    expect(r.approval).toMatch(/given by the demo/);
    expect(r.outcome).toBe('restart-aws-node verified; collect-logs done');
  });

  it('cni-policy-missing: AmazonEKS_CNI_Policy attached and verified, then aws-node restarted and verified (the follow-up)', () => {
    const r = records['cni-policy-missing'];
    expect(r.actions).toEqual([
      { id: 'attach-managed-policy', status: 'verified' },
      { id: 'restart-aws-node', status: 'verified' },
    ]);
    expect(r.approval).toMatch(/given by the demo/);
    expect(r.outcome).toMatch(
      /^remedied and verified: attach .*AmazonEKS_CNI_Policy .*; then restart aws-node on node ip-10-0-12-34\./,
    );
  });

  it('windows-ipam-label: enable-windows-ipam set in the VPC CNI ConfigMap, re-read and verified', () => {
    const r = records['windows-ipam-label'];
    expect(r.actions).toEqual([{ id: 'enable-windows-ipam', status: 'verified' }]);
    expect(r.approval).toMatch(/given by the demo/);
    expect(r.findings).toEqual(expect.arrayContaining([{ id: 'k8s.windows-ipam', status: 'fail' }]));
  });

  it('each scenario with a cluster API shows the Kubernetes events pod-doctor wrote back on the node and its stuck pods, read from the API server', () => {
    const withCluster = SCENARIOS.filter((s) => s.cluster).map((s) => s.name);
    expect(withCluster.length).toBeGreaterThan(0);
    for (const name of withCluster) {
      const events = records[name].clusterEvents;
      expect(events.length, name).toBeGreaterThan(0);
      expect(new Set(events.map((e) => e.reportingController)), name).toEqual(new Set(['pod-doctor']));
      expect(
        events.some((e) => e.regarding.startsWith('Node ')),
        name,
      ).toBe(true);
      // Events go on the pods still stuck when the run reports: where a node repair let them start (the
      // node's kubelet starts them once the node is healthy again) or a verified rollback replaced them
      // (the deployment controller deletes the failing revision's pods), the node carries the report alone.
      const scenario = SCENARIOS.find((s) => s.name === name);
      const podsStarted =
        /repaired and verified/.test(records[name].outcome) ||
        (scenario?.expect.remedy === 'rollback-deployment' && /verified/.test(records[name].outcome));
      expect(
        events.some((e) => e.regarding.startsWith('Pod ')),
        name,
      ).toBe(!podsStarted);
      const cause = events.find((e) => e.reason === 'Diagnosed');
      expect(cause?.type, name).toBe('Warning');
      expect(cause?.note, name).toMatch(
        new RegExp(`^${records[name].class}: .*incident \\S+; summary: s3://\\S+/incidents/\\S+summary\\.json$`),
      );
      for (const e of events) expect(Buffer.byteLength(e.note), name).toBeLessThanOrEqual(1024);
    }
    const w = records['windows-ipam-label'].clusterEvents;
    expect(w.filter((e) => e.action === 'EnableWindowsIpam').map((e) => e.reason)).toEqual(
      Array(w.length / 2).fill('ActionVerified'),
    );
    // Without a cluster API nothing is written, and the run still ends as expected.
    for (const s of SCENARIOS.filter((x) => !x.cluster)) expect(records[s.name].clusterEvents, s.name).toEqual([]);
  });

  it('every scenario has its cluster API: the stuck pods are inspected everywhere and no check errs where nothing failed', () => {
    for (const s of SCENARIOS) {
      expect(s.cluster, s.name).toBeDefined();
      const r = records[s.name];
      expect(
        r.findings.filter((f) => f.status === 'error'),
        s.name,
      ).toEqual([]);
      expect(r.findings.find((f) => f.id === 'k8s.stuck-pods')?.status, s.name).toBe('fail');
    }
  });

  it('cni-policy-blocked-by-boundary: a failed verification is rolled back and the outcome never says verified', () => {
    const r = records['cni-policy-blocked-by-boundary'];
    expect(r.actions).toEqual([{ id: 'attach-managed-policy', status: 'rolled-back' }]);
    expect(r.outcome).not.toMatch(/\bverified\b/);
  });

  it('an outcome says "verified" only where a verification passed', () => {
    for (const r of Object.values(records)) {
      const passed = r.actions.some((a) => a.status === 'verified') || /repaired and verified/.test(r.outcome);
      if (/\bverified\b/.test(r.outcome)) expect(passed, r.scenario).toBe(true);
    }
  });

  it('image-tag-typo: the summary suggests the closest existing tags', () => {
    const r = cli(['demo', 'image-tag-typo', '--verbose']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('closest tags: v2.3.1, v2.3.0, v2.2.9');
    expect(r.stdout).toMatch(/Subject: \[pod-doctor\] image-not-found on prod-eu\//);
  });

  it('writes a self-contained HTML report with a timeline per incident', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pod-doctor-html-')), 'report.html');
    const r = cli(['demo', 'docker-hub-rate-limit', 'windows-ipam-label', '--html', file]);
    expect(r.status, r.stderr).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src=/);
    // One SVG timeline per incident (test/cli/demo-report.test.ts checks the page in Chromium).
    expect((html.match(/<svg class="timeline"/g) ?? []).length).toBe(2);
  });
});

describe('pod-doctor diagnose', () => {
  it('runs every check group against an account and reports findings with remediations', async () => {
    const { diagnose, renderReport } = await import('../../cli/diagnose-command.js');
    const { healthyAccount, NODE_DNS, ENDPOINT_SG } = await import('../../local/account-snapshot.js');
    const { mockAccount } = await import('../../local/mock-account.js');
    const account = healthyAccount();
    for (const g of account.securityGroups) if (g.GroupId === ENDPOINT_SG) g.IpPermissions = [];
    const clients = mockAccount(account);
    const report = await diagnose(
      clients,
      { cluster: 'prod-eu', node: NODE_DNS, region: 'eu-west-1' },
      new Date('2026-11-29T10:00:00Z'),
    );
    clients.restore();
    expect(report.node?.instanceId).toBe('i-0a1b2c3d4e5f60718');
    expect(report.findings).toHaveLength(14);
    const text = renderReport(report);
    expect(text).toContain('FAIL  vpc.endpoint.sg-443');
    expect(text).toContain('→ add an inbound rule TCP 443');
    expect(text).toMatch(/14 checks: 1 fail, 1 warn, 0 error$/); // the warn: no image given, existence not checked
  });

  it('says clearly that credentials are missing instead of failing with a stack trace', () => {
    const home = mkdtempSync(join(tmpdir(), 'pod-doctor-nocreds-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_')));
    const r = spawnSync(
      'node',
      [
        '--import',
        'tsx',
        join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'),
        'diagnose',
        '--cluster',
        'prod-eu',
        '--region',
        'eu-west-1',
      ],
      {
        encoding: 'utf8',
        cwd: PROJECT_ROOT,
        // No credential anywhere, and the instance-metadata lookup off: nothing leaves this machine.
        env: {
          ...env,
          HOME: home,
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_CONFIG_FILE: join(home, 'none'),
          AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
        },
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no usable AWS credentials');
    expect(r.stderr).toContain('aws sso login');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('requires a cluster', () => {
    const r = cli(['diagnose']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--cluster is required');
  });
});

describe('pod-doctor replay', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'pod-doctor-replay-'));

  it('replays raw log lines: a storm becomes one incident with its summary', () => {
    const file = join(tmp(), 'lines.txt');
    const line = corpus().find((l) => l.class === 'rate-limited')?.line ?? '';
    writeFileSync(file, `${Array.from({ length: 25 }, () => line).join('\n')}\nPulling sandbox image..\n`);
    const r = cli(['replay', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('━━━ rate-limited (25 event(s) → 1 incident)');
    expect(r.stdout).toContain('ECR pull-through cache');
  });

  it('replays a saved EventBridge CloudTrail event', () => {
    const r = cli([
      'replay',
      join(PROJECT_ROOT, 'test/fixtures/events/create-eni-insufficient-addresses.json'),
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      class: 'ip-exhaustion',
      incident: { scope: 'subnet', scopeValue: 'subnet-0a1b2c3d4e5f67890' },
    });
  });

  it('replays a decoded subscription batch', () => {
    const file = join(tmp(), 'batch.json');
    writeFileSync(
      file,
      JSON.stringify({
        messageType: 'DATA_MESSAGE',
        owner: '111122223333',
        logGroup: '/aws/containerinsights/prod-eu/dataplane',
        logStream: 's',
        subscriptionFilters: ['f'],
        logEvents: [{ id: '1', timestamp: 1_795_946_400_000, message: corpus()[0].line }],
      }),
    );
    const r = cli(['replay', file, '--json']);
    expect(JSON.parse(r.stdout.trim().split('\n')[0])).toMatchObject({ class: 'sandbox-image' });
  });

  it('says so when nothing in the input is a failure', () => {
    const file = join(tmp(), 'quiet.txt');
    writeFileSync(file, 'Pulling sandbox image..\n');
    expect(cli(['replay', file]).stdout).toContain('no incident');
  });
});
