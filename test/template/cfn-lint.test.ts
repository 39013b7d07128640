import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS } from '../support/channels.js';
import { MIXED_CLUSTERS } from '../support/private-clusters.js';
import { DEPLOY_ENV, SYNTH_ENVS, synthIn } from '../support/synth.js';
import { ACKNOWLEDGED_CFN_LINT_WARNINGS } from './cfn-lint-acknowledged.js';

const logGroups = (c: string) => [`/aws/containerinsights/${c}/dataplane`];
const everyClass = (mode: string) =>
  Object.fromEntries(
    ['sandbox-image', 'pid-exhaustion', 'disk-full', 'ip-exhaustion', 'registry-auth'].map((c) => [c, mode]),
  );

/** Realistic configurations: one cluster, three clusters, with e-mails or none, each mode. */
const CONFIGS: Record<string, unknown> = {
  'no configuration': undefined,
  'one cluster, e-mails, defaults': {
    clusters: [{ name: 'prod-eu', logGroups: logGroups('prod-eu') }],
    notificationEmails: ['oncall@example.com'],
  },
  'three clusters, no e-mails, every class observe': {
    clusters: ['prod-a', 'prod-b', 'staging'].map((name) => ({
      name,
      logGroups: [...logGroups(name), `/eks/${name}/ipamd`],
    })),
    modes: everyClass('observe'),
  },
  'one cluster, two e-mails, every class approve, long approval': {
    clusters: [{ name: 'prod-eu', logGroups: logGroups('prod-eu') }],
    notificationEmails: ['oncall@example.com', 'platform@example.com'],
    modes: everyClass('approve'),
    limits: { approvalTimeoutMinutes: 24 * 60 },
  },
  'one cluster with remedies (roles, endpoint security groups, subnets)': {
    clusters: [
      {
        name: 'prod-eu',
        logGroups: logGroups('prod-eu'),
        remediation: {
          roles: ['eksctl-prod-eu-nodegroup-ng-1-NodeInstanceRole-1ABCDEF'],
          endpointSecurityGroups: ['sg-0fedcba9876543210'],
          subnets: ['subnet-0a1b2c3d4e5f67890'],
        },
      },
    ],
  },
  'one cluster, chat in Slack and Teams, PagerDuty and Opsgenie': {
    clusters: [{ name: 'prod-eu', logGroups: logGroups('prod-eu') }],
    notificationEmails: ['oncall@example.com'],
    channels: CHANNELS,
  },
  'public, CIDR-restricted and private clusters: functions in two VPCs (issue 36)': {
    ...MIXED_CLUSTERS,
    clusters: MIXED_CLUSTERS.clusters.map((c) => ({ ...c, logGroups: logGroups(c.name) })),
  },
  'one cluster, every class auto, named kill switch': {
    clusters: [{ name: 'prod-eu', logGroups: logGroups('prod-eu') }],
    modes: everyClass('auto'),
    killSwitchParameterName: '/pod-doctor/kill-switch',
  },
};

interface LintMatch {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Filename: string;
}

const runs: { name: string; dir: string }[] = [];
let matches: LintMatch[] = [];

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), 'pod-doctor-cfn-lint-'));
  for (const [name, config] of Object.entries(CONFIGS)) {
    for (const [i, { env }] of SYNTH_ENVS.entries()) {
      const dir = join(root, `${runs.length}`);
      synthIn(config, env, dir);
      runs.push({ name: `${name} (${SYNTH_ENVS[i].name})`, dir });
    }
  }
  // IAM events forwarded from us-east-1: a second stack (needs the account and region: deploy only).
  const dir = join(root, 'forwarder');
  synthIn(
    { clusters: [{ name: 'prod-eu', logGroups: logGroups('prod-eu') }], forwardIamEvents: true },
    DEPLOY_ENV,
    dir,
  );
  runs.push({ name: 'IAM events forwarded (as cdk deploy)', dir });
  const templates = runs.flatMap((r) =>
    readdirSync(r.dir)
      .filter((f) => f.endsWith('.template.json'))
      .map((f) => join(r.dir, f)),
  );
  expect(templates.length).toBe(runs.length + 1);
  // cfn-lint exits non-zero when it finds anything; the JSON on stdout is what counts.
  let out: string;
  try {
    out = execFileSync('cfn-lint', ['--format', 'json', '--', ...templates], { encoding: 'utf8', maxBuffer: 64 << 20 });
  } catch (e) {
    const err = e as { stdout?: string; status?: number; message: string };
    if (err.stdout === undefined || err.status === undefined || err.status > 31) throw e;
    out = err.stdout;
  }
  matches = JSON.parse(out || '[]') as LintMatch[];
}, 600_000);

const where = (m: LintMatch) =>
  `${runs.find((r) => m.Filename.startsWith(r.dir))?.name}: ${m.Rule.Id} ${m.Message}`.slice(0, 300);

describe('cfn-lint over the synthesized templates of realistic configurations, synthesized both ways', () => {
  it('finds no error in any template', () => {
    expect(matches.filter((m) => m.Level === 'Error').map(where)).toEqual([]);
  });

  it('raises no warning that is not acknowledged with a reason', () => {
    const unacknowledged = matches.filter(
      (m) => m.Level === 'Warning' && !(m.Rule.Id in ACKNOWLEDGED_CFN_LINT_WARNINGS),
    );
    expect(unacknowledged.map(where)).toEqual([]);
  });

  it('acknowledges nothing that no template raises any more', () => {
    const raised = new Set(matches.map((m) => m.Rule.Id));
    expect(Object.keys(ACKNOWLEDGED_CFN_LINT_WARNINGS).filter((id) => !raised.has(id))).toEqual([]);
  });
});
