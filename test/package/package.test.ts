import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * The package as a CDK user gets it: `npm pack` (which builds), installed into an empty app,
 * imported with plain Node (no TypeScript loader), two instances synthesized in one stack.
 */
const work = mkdtempSync(join(tmpdir(), 'pod-doctor-package-'));
const app = join(work, 'app');
const installed = join(app, 'node_modules', 'pod-doctor');

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
}

/** npm install from the local cache; the registry only for metadata the cache lacks. */
function install(tarball: string): void {
  const args = ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball];
  try {
    run('npm', [...args, '--offline'], app);
  } catch {
    run('npm', [...args, '--prefer-offline'], app);
  }
}

const APP = `
import { App, Stack } from 'aws-cdk-lib';
import { Duration } from 'aws-cdk-lib';
import { PodDoctor } from 'pod-doctor';
const app = new App({ outdir: 'cdk.out' });
const stack = new Stack(app, 'Platform', { env: { account: '111122223333', region: 'eu-west-1' } });
for (const name of ['prod', 'staging']) {
  new PodDoctor(stack, name, {
    clusters: [{ name, logGroups: [\`/aws/containerinsights/\${name}/dataplane\`] }],
    notificationEmails: [\`oncall+\${name}@example.com\`],
    approvalTimeout: Duration.minutes(30),
  });
}
const template = app.synth().getStackByName('Platform').template;
process.stdout.write(JSON.stringify(template));
`;

describe('the installed package', () => {
  let tarball: string;
  beforeAll(() => {
    run('npm', ['pack', '--pack-destination', work], PROJECT_ROOT);
    tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')) ?? 'no tarball');
    run('mkdir', ['-p', app], work);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'platform', private: true, type: 'module' }));
    writeFileSync(join(app, 'app.mjs'), APP);
    install(tarball);
  });

  it('ships compiled JavaScript, declarations and pre-bundled handlers, no TypeScript sources', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(existsSync(join(installed, pkg.main))).toBe(true);
    expect(existsSync(join(installed, pkg.types))).toBe(true);
    const handlers = readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers')).map((f) => f.replace(/\.ts$/, ''));
    for (const h of handlers) expect(existsSync(join(installed, 'dist', 'assets', h, 'index.mjs')), h).toBe(true);
    const sources = run(
      'find',
      ['.', '-name', '*.ts', '-not', '-name', '*.d.ts', '-not', '-path', './node_modules/*'],
      installed,
    );
    expect(sources.trim()).toBe('');
  });

  it('imports PodDoctor with plain Node and synthesizes two instances in one stack from the shipped bundles', () => {
    const template = JSON.parse(run('node', ['app.mjs'], app)) as {
      Resources: Record<
        string,
        { Type: string; Properties: Record<string, unknown>; Metadata?: { PodDoctorHandler?: string } }
      >;
    };
    const resources = Object.values(template.Resources);
    const handlers = resources
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => r.Metadata?.PodDoctorHandler)
      .filter((h) => h !== undefined);
    // Each instance runs every shipped handler but those of options it does not set: the door with the
    // account remedies (no remediation scope), the fleet's intake and spoke forwarder, the channels' notices.
    // … and the chat approvals' consumer (no Slack or Teams channel).
    const unused = ['approval-chat', 'door-remedies', 'fleet-intake', 'notices', 'spoke-ingest'];
    const expected = readdirSync(join(installed, 'dist', 'assets')).filter((h) => !unused.includes(h));
    expect([...new Set(handlers)].sort()).toEqual(expected.sort());
    expect(handlers).toHaveLength(2 * expected.length);
    expect(resources.filter((r) => r.Type === 'AWS::StepFunctions::StateMachine')).toHaveLength(2);
    // Every function's code is one of the pre-bundled handlers, byte for byte (no bundler ran).
    const shipped = new Set(
      readdirSync(join(installed, 'dist', 'assets')).map((h) =>
        readFileSync(join(installed, 'dist', 'assets', h, 'index.mjs'), 'utf8'),
      ),
    );
    const assets = readdirSync(join(app, 'cdk.out')).filter((d) => d.startsWith('asset.'));
    expect(assets.length).toBeGreaterThan(0);
    for (const a of assets) {
      const bundle = join(app, 'cdk.out', a, 'index.mjs');
      if (existsSync(bundle)) expect(shipped.has(readFileSync(bundle, 'utf8')), a).toBe(true);
    }
  });

  it('type-checks a TypeScript app against the shipped declarations', () => {
    const typed = APP.replace(
      "import { App, Stack } from 'aws-cdk-lib';",
      "import { App, Stack } from 'aws-cdk-lib';\nimport type { PodDoctorProps } from 'pod-doctor';\nexport const props: PodDoctorProps = {};",
    ).replace('process.stdout.write(JSON.stringify(template));', 'export const resources = template.Resources;');
    writeFileSync(join(app, 'typed.ts'), typed);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          types: [],
          skipLibCheck: true,
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync('node', [tsc, '-p', '.'], { cwd: app, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('leaves out the local runtime, the demo and test fixtures: the demo says it runs from a checkout', () => {
    for (const dir of ['dist/local', 'dist/demo', 'dist/bench', 'test', 'local', 'demo'])
      expect(existsSync(join(installed, dir)), dir).toBe(false);
    const r = spawnSync(join(app, 'node_modules', '.bin', 'pod-doctor'), ['demo', '--all'], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/run it from a checkout of the repository/);
  });

  it('builds its command-line entry point executable (a checkout runs dist/bin/pod-doctor.js as a file)', () => {
    expect(statSync(join(PROJECT_ROOT, 'dist', 'bin', 'pod-doctor.js')).mode & 0o111).toBe(0o111);
  });

  it('is publishable: not private, built on pack (prepack), nothing built on a consumer install (no prepare)', () => {
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(pkg.private).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('npm run build');
    expect(pkg.scripts).not.toHaveProperty('prepare');
    expect(pkg.scripts).not.toHaveProperty('postinstall');
  });

  it('ships no source maps and stays under 700 files and 25 MB unpacked', () => {
    // tar -tv: permissions, owner, size, date, time, path.
    const entries = run('tar', ['-tvzf', tarball], work)
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => !f[0].startsWith('d'))
      .map((f) => ({ size: Number(f[2]), path: f.slice(5).join(' ') }));
    expect(entries.filter((e) => e.path.endsWith('.map')).map((e) => e.path)).toEqual([]);
    const unpacked = entries.reduce((n, e) => n + e.size, 0);
    expect(entries.length).toBeLessThan(700);
    expect(unpacked).toBeLessThan(25e6);
    process.stdout.write(
      `package: ${entries.length} files, ${(unpacked / 1e6).toFixed(1)} MB unpacked, ${(statSync(tarball).size / 1e6).toFixed(1)} MB packed\n`,
    );
  });

  it('answers --help of every command from the installed package, and says which need a checkout', () => {
    const bin = join(app, 'node_modules', '.bin', 'pod-doctor');
    for (const c of ['classify', 'demo', 'diagnose', 'mcp', 'preflight', 'replay', 'config']) {
      const r = spawnSync(bin, [c, '--help'], { cwd: app, encoding: 'utf8' });
      expect(r.status, `${c}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: pod-doctor ${c}`, 'm'));
      expect(r.stderr, c).toBe('');
    }
    const overview = spawnSync(bin, ['--help'], { cwd: app, encoding: 'utf8' }).stdout;
    expect(overview).toMatch(/^ {2}demo .*\(from a checkout\)$/m);
    const bogus = spawnSync(bin, ['classify', '--bogus'], { cwd: app, encoding: 'utf8' });
    expect(bogus.status).toBe(2);
  });

  it('runs the installed pod-doctor --help', () => {
    const r = spawnSync(join(app, 'node_modules', '.bin', 'pod-doctor'), ['--help'], { cwd: app, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: pod-doctor <command>/m);
    expect(r.stdout).toMatch(/^ {2}classify /m);
  });
});
