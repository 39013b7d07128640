import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { iamCoverage } from '../support/iam-coverage.js';
import { ACKNOWLEDGED_CFN_LINT_WARNINGS } from './cfn-lint-acknowledged.js';

/** examples/notifications: a CDK app of its own (its cdk.json), synthesized as `cdk deploy` runs it. */
const EXAMPLE = join(PROJECT_ROOT, 'examples', 'notifications');
let out = '';
type Resource = { Type: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource> = {};
const templateFile = () => join(out, 'PodDoctorNotifications.template.json');

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'pod-doctor-example-notifications-'));
  const r = spawnSync('npx', ['cdk', 'synth', '-q', '-o', out], {
    cwd: EXAMPLE,
    encoding: 'utf8',
    env: { ...process.env, CDK_DEFAULT_ACCOUNT: '111122223333', CDK_DEFAULT_REGION: 'eu-west-1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`cdk synth in examples/notifications failed:\n${r.stderr.slice(-4000)}`);
  resources = (JSON.parse(readFileSync(templateFile(), 'utf8')) as { Resources: Record<string, Resource> }).Resources;
}, 600_000);

describe('examples/notifications (npx cdk synth)', () => {
  const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);

  it('configures Slack, Teams and PagerDuty, the key from Secrets Manager', () => {
    expect(ofType('AWS::Chatbot::SlackChannelConfiguration')).toHaveLength(1);
    expect(ofType('AWS::Chatbot::MicrosoftTeamsChannelConfiguration')).toHaveLength(1);
    const [connection] = ofType('AWS::Events::Connection');
    expect(JSON.stringify(connection.Properties)).toContain(
      '{{resolve:secretsmanager:arn:aws:secretsmanager:eu-west-1:111122223333:secret:pod-doctor/pagerduty-AbC123:SecretString:routingKey::}}',
    );
    expect(ofType('AWS::Events::ApiDestination').map((d) => d.Properties.InvocationEndpoint)).toEqual([
      'https://events.pagerduty.com/v2/enqueue',
    ]);
  });

  it('passes cfn-lint: no error, no warning beyond the acknowledged ones', () => {
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', '--', templateFile()], { encoding: 'utf8' });
    const rules = [...lint.stdout.matchAll(/:([EW]\d+):/g)].map((m) => m[1]);
    expect(rules.filter((r) => r.startsWith('E'))).toEqual([]);
    expect([...new Set(rules)].filter((r) => !ACKNOWLEDGED_CFN_LINT_WARNINGS[r])).toEqual([]);
  });

  it('every AWS call its Lambda bundles make is allowed by the role of a function that bundles it', () => {
    const { checked, gaps } = iamCoverage(out);
    expect(gaps).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it('the coverage check is not vacuous: without the S3 reads of the functions that read a stored summary (the notices function, the door’s write-back) it reports the gap', () => {
    const copy = mkdtempSync(join(tmpdir(), 'pod-doctor-example-doctored-'));
    cpSync(out, copy, { recursive: true });
    const t = JSON.parse(readFileSync(templateFile(), 'utf8')) as { Resources: Record<string, Resource> };
    for (const [id, r] of Object.entries(t.Resources))
      if (r.Type === 'AWS::IAM::Policy' && /ChannelsNoticesEnrich|DoorFunction/.test(id)) {
        const doc = r.Properties.PolicyDocument as { Statement: { Action: unknown }[] };
        doc.Statement = doc.Statement.filter((s) => s.Action !== 's3:GetObject');
      }
    writeFileSync(join(copy, 'PodDoctorNotifications.template.json'), JSON.stringify(t));
    expect(iamCoverage(copy).gaps).toEqual(['stored-summary.ts calls s3:GetObject']);
  });
});

// cfn-lint must be on the PATH for the template tier (as for test/template/cfn-lint.test.ts).
execFileSync('cfn-lint', ['--version']);
