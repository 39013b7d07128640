import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { iamCoverage } from '../support/iam-coverage.js';
import { ACKNOWLEDGED_CFN_LINT_WARNINGS } from './cfn-lint-acknowledged.js';

/** examples/fleet: a CDK app of its own (its cdk.json), synthesized as `npx cdk synth` runs it. */
const EXAMPLE = join(PROJECT_ROOT, 'examples', 'fleet');
let out = '';
type Resource = { Type: string; Properties: Record<string, unknown> };
const templates = () => readdirSync(out).filter((f) => f.endsWith('.template.json'));
const resourcesOf = (file: string) =>
  Object.values(
    (JSON.parse(readFileSync(join(out, file), 'utf8')) as { Resources: Record<string, Resource> }).Resources,
  );

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'pod-doctor-example-fleet-'));
  const r = spawnSync('npx', ['cdk', 'synth', '-q', '-o', out], {
    cwd: EXAMPLE,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`cdk synth in examples/fleet failed:\n${r.stderr.slice(-4000)}`);
}, 900_000);

describe('examples/fleet (npx cdk synth)', () => {
  it('writes a hub, spokes for two accounts × two Regions, and the spoke StackSet with its asset buckets', () => {
    expect(templates().sort()).toEqual(
      expect.arrayContaining([
        'PodDoctorHub.template.json',
        'PodDoctorSpoke-222222222222-eu-west-1.template.json',
        'PodDoctorSpoke-222222222222-us-east-1.template.json',
        'PodDoctorSpoke-333333333333-eu-west-1.template.json',
        'PodDoctorSpoke-333333333333-us-east-1.template.json',
        'PodDoctorSpokeAssets-eu-west-1.template.json',
        'PodDoctorSpokeAssets-us-east-1.template.json',
        'PodDoctorSpokeStackSet.template.json',
      ]),
    );
    const [stackSet] = resourcesOf('PodDoctorSpokeStackSet.template.json').filter(
      (r) => r.Type === 'AWS::CloudFormation::StackSet',
    );
    expect(stackSet.Properties).toMatchObject({
      PermissionModel: 'SERVICE_MANAGED',
      AutoDeployment: { Enabled: true, RetainStacksOnAccountRemoval: false },
      CallAs: 'DELEGATED_ADMIN',
      StackInstancesGroup: [
        { DeploymentTargets: { OrganizationalUnitIds: ['ou-ab12-cdef3456'] }, Regions: ['eu-west-1', 'us-east-1'] },
      ],
    });
    // The StackSet's template holds the spoke: its role and its ingest, code from the Region's asset bucket.
    const spokeSet = templates().find((f) => f.endsWith('.stackset.template.json')) as string;
    const fn = resourcesOf(spokeSet).find((r) => r.Type === 'AWS::Lambda::Function') as Resource;
    expect(JSON.stringify(fn.Properties.Code)).toContain('pod-doctor-eks-fleet-spoke-assets');
    expect(
      resourcesOf(spokeSet)
        .filter((r) => r.Type === 'AWS::IAM::Role')
        .map((r) => r.Properties.RoleName),
    ).toContainEqual({
      'Fn::Join': ['', ['pod-doctor-eks-fleet-spoke-', { Ref: 'AWS::Region' }]],
    });
  });

  it('passes cfn-lint: no error, no warning beyond the acknowledged ones', () => {
    const files = templates().map((f) => join(out, f));
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', '--', ...files], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const rules = [...lint.stdout.matchAll(/:([EW]\d+):/g)].map((m) => m[1]);
    expect(rules.filter((r) => r.startsWith('E'))).toEqual([]);
    expect([...new Set(rules)].filter((r) => !ACKNOWLEDGED_CFN_LINT_WARNINGS[r])).toEqual([]);
    // Ten templates, one cfn-lint run: minutes on a loaded machine.
  }, 900_000);

  it('every AWS call a bundled function makes is allowed by its role, in every template', () => {
    let checked = 0;
    for (const file of templates()) {
      const c = iamCoverage(out, file);
      expect({ file, gaps: c.gaps }).toEqual({ file, gaps: [] });
      checked += c.checked;
    }
    expect(checked).toBeGreaterThan(40);
  });
});

// cfn-lint must be on the PATH for the template tier (as for test/template/cfn-lint.test.ts).
execFileSync('cfn-lint', ['--version']);
