import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closest, parseCommandArgs, UsageError } from '../../cli/args.js';
import { COMMANDS } from '../../cli/commands.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI from its sources, asynchronously (a test's own server must keep answering meanwhile). */
function cli(args: readonly string[], env: NodeJS.ProcessEnv = process.env, imports: string[] = []): Promise<Run> {
  const argv = [
    '--import',
    'tsx',
    ...imports.flatMap((i) => ['--import', i]),
    join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('node', [...argv, ...args], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const work = mkdtempSync(join(tmpdir(), 'pod-doctor-cli-args-'));

describe('one strict parser for every subcommand', () => {
  it.each(COMMANDS.map((c) => [c.name]))('%s rejects an unknown option with exit 2, naming it', async (name) => {
    const r = await cli([name, '--bogus', ...(name === 'replay' ? ['x'] : [])]);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`pod-doctor ${name}: unknown option --bogus`);
    expect(r.stdout).toBe('');
  });

  it('suggests the option meant, the command meant, and an option typed without its dashes', async () => {
    const [jsn, clustr, demoo, json] = await Promise.all([
      cli(['demo', '--jsn']),
      cli(['preflight', '--clustr', 'prod']),
      cli(['demoo']),
      cli(['demo', 'json']),
    ]);
    expect(jsn).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('unknown option --jsn (did you mean --json?)'),
    });
    expect(clustr.stderr).toContain('unknown option --clustr (did you mean --cluster?)');
    expect(demoo).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('unknown command "demoo" (did you mean demo?)'),
    });
    expect(json).toMatchObject({ status: 2, stderr: expect.stringContaining('did you mean --json?') });
  });

  it('refuses arguments beyond what a command takes and options without their value', async () => {
    const [classify, config, replay, mcp, cluster] = await Promise.all([
      cli(['classify', 'file.log']),
      cli(['config', 'a.json', 'b.json']),
      cli(['replay']),
      cli(['mcp', 'pid-exhaustion']),
      cli(['diagnose', '--cluster']),
    ]);
    expect(classify).toMatchObject({ status: 2, stderr: expect.stringContaining('unexpected argument "file.log"') });
    expect(config).toMatchObject({ status: 2, stderr: expect.stringContaining('unexpected argument "b.json"') });
    expect(replay).toMatchObject({ status: 2, stderr: expect.stringContaining('missing FILE') });
    expect(mcp).toMatchObject({ status: 2, stderr: expect.stringContaining('scenarios go with --demo') });
    expect(cluster).toMatchObject({
      status: 2,
      stderr: expect.stringContaining("'--cluster <value>' argument missing"),
    });
  });

  it('config takes its file as the argument, never an option as a file name', () => {
    expect(parseCommandArgs(['cdk.json'], COMMANDS.find((c) => c.name === 'config')?.args ?? { options: {} })).toEqual({
      values: {},
      positionals: ['cdk.json'],
    });
    expect(() => parseCommandArgs(['--bogus'], { options: {}, maxPositionals: 1 })).toThrow(UsageError);
  });

  it('suggests only close spellings', () => {
    expect(closest('--jsno', ['--json', '--html'])).toBe('--json');
    expect(closest('--bogus', ['--json', '--html', '--all'])).toBeUndefined();
    expect(closest('pre', ['preflight', 'replay'])).toBe('preflight');
  });
});

describe('--help of every subcommand', () => {
  it.each(COMMANDS.map((c) => [c.name]))('%s --help prints the help and loads none of the command', async (name) => {
    const log = join(work, `${name}-imports.log`);
    writeFileSync(log, '');
    const r = await cli([name, '--help'], { ...process.env, POD_DOCTOR_IMPORT_LOG: log }, [
      join(PROJECT_ROOT, 'test', 'support', 'import-log.mjs'),
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: pod-doctor ${name}`);
    expect(r.stderr).toBe('');
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      .filter((u) => u.startsWith(`file://${PROJECT_ROOT}/`))
      .map((u) => u.slice(`file://${PROJECT_ROOT}/`.length));
    // The entry, the parser and the command table: no implementation, no SDK, no dependency at all.
    expect([...new Set(loaded)].sort()).toEqual([
      'bin/pod-doctor.ts',
      'cli/args.ts',
      'cli/commands.ts',
      'lib/constructs/paths.ts',
    ]);
  });

  it('the overview says which commands run only from a checkout', async () => {
    const r = await cli(['--help']);
    expect(r.stdout).toMatch(/^ {2}demo +.*\(from a checkout\)$/m);
    expect(r.stdout).toMatch(/^ {2}replay +.*\(from a checkout\)$/m);
    expect(r.stdout).not.toMatch(/^ {2}classify +.*\(from a checkout\)$/m);
  });
});

/**
 * A stand-in AWS endpoint on loopback (AWS_ENDPOINT_URL): it records the SigV4 credential scope of
 * each request and answers as EKS does for a cluster it does not have; every other call is denied.
 */
function fakeAws(): { server: Server; scopes: string[] } {
  const scopes: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\//.exec(req.headers.authorization ?? '');
    if (scope) scopes.push(`${scope[2]}@${scope[1]}`);
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/clusters/')) {
        res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
        res.end(JSON.stringify({ message: `No cluster found for name: ${req.url.slice(10)}.` }));
        return;
      }
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'AccessDeniedException' });
      res.end(JSON.stringify({ __type: 'AccessDeniedException', message: 'denied by the test endpoint' }));
    });
  });
  return { server, scopes };
}

describe('the account commands read the Region and credentials as every AWS tool does', () => {
  const aws = fakeAws();
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    await new Promise<void>((r) => aws.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(aws.server.address() as AddressInfo).port}`;
    writeFileSync(join(work, 'config'), '[default]\nregion = us-west-2\n\n[profile team]\nregion = ap-southeast-2\n');
    writeFileSync(
      join(work, 'credentials'),
      '[team]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n',
    );
    const {
      AWS_REGION: _r,
      AWS_DEFAULT_REGION: _d,
      AWS_ACCESS_KEY_ID: _k,
      AWS_SECRET_ACCESS_KEY: _s,
      ...rest
    } = process.env;
    env = {
      ...rest,
      HOME: work,
      AWS_CONFIG_FILE: join(work, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(work, 'credentials'),
      AWS_PROFILE: 'team',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL: url,
      AWS_ENDPOINT_URL_EC2: url,
    };
  });
  afterAll(() => new Promise<void>((r) => aws.server.close(() => r())));

  it("preflight uses the Region of AWS_PROFILE's profile, and prints no SDK Node-version banner", async () => {
    aws.scopes.length = 0;
    const r = await cli(['preflight', '--cluster', 'prod-apse2'], env);
    expect(r.stdout).toContain('pod-doctor preflight: cluster prod-apse2 in ap-southeast-2');
    expect(r.stdout).toMatch(/^region\.cluster\s+FAIL\s+no cluster prod-apse2 in ap-southeast-2$/m);
    // Every request was signed for the profile's Region.
    expect(aws.scopes).toContain('eks@ap-southeast-2');
    expect(new Set(aws.scopes.map((s) => s.split('@')[1]))).toEqual(new Set(['ap-southeast-2']));
    expect(r.stderr).not.toMatch(/NodeVersionSupportWarning|will require node/);
  });

  it('diagnose on a cluster the account does not have is an error, not a list of passes', async () => {
    const r = await cli(['diagnose', '--cluster', 'no-such-cluster'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ClusterNotFoundError: no EKS cluster named no-such-cluster in ap-southeast-2');
    expect(r.stdout).not.toMatch(/PASS/);
    expect(r.stderr).not.toMatch(/NodeVersionSupportWarning/);
  });

  it('--region wins over the profile, and --profile over AWS_PROFILE', async () => {
    const [region, profile] = await Promise.all([
      cli(['preflight', '--cluster', 'c', '--region', 'eu-central-1', '--json'], env),
      cli(['preflight', '--cluster', 'c', '--profile', 'default', '--json'], { ...env, AWS_PROFILE: 'team' }),
    ]);
    expect(JSON.parse(region.stdout)).toMatchObject({ region: 'eu-central-1' });
    // The default profile has a Region but no credentials: the Region is read, then credentials are missing.
    expect(profile.stderr).toContain('no usable AWS credentials');
  });

  it('without a Region anywhere, says where to put one (exit 2)', async () => {
    const r = await cli(['diagnose', '--cluster', 'c'], { ...env, AWS_PROFILE: 'nobody' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no Region: pass --region, set AWS_REGION, or give the profile a region');
  });
});
