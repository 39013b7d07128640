import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AL2023_PAUSE, LocalNode, REGISTRY_TOKEN } from '../../local/local-node.js';

/**
 * On real containerd: the script restores only the node's own
 * configured sandbox image, and the registry token never reaches a command line or an output.
 */
describe('repair-pause-image.sh: trusted image, secret token', () => {
  let node: LocalNode;
  let al2: string;
  let argvLog: string;
  let shimDir: string;

  beforeAll(async () => {
    node = await new LocalNode().start();
    al2 = node.writeConfig('al2.toml', node.registryImage);
    // A ctr on PATH that records its argv and environment (what /proc/<pid>/cmdline and environ show) and runs the real one.
    shimDir = join(node.dir, 'shim');
    mkdirSync(shimDir);
    argvLog = join(node.dir, 'ctr-argv.log');
    const realCtr = spawnSync('bash', ['-c', 'command -v ctr'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(shimDir, 'ctr'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> ${argvLog}\nenv >> ${argvLog}\nexec ${realCtr} "$@"\n`,
    );
    chmodSync(join(shimDir, 'ctr'), 0o755);
  });
  afterAll(() => node?.stop());
  beforeEach(() => {
    node.removeImage(AL2023_PAUSE, node.registryImage, 'evil.example.com/x/pause:1');
    writeFileSync(argvLog, '');
  });

  // The token command reads a file (as `aws ecr get-login-password` gets it from the API): the token is in no environment.
  const al2Env = (token = REGISTRY_TOKEN) => {
    writeFileSync(join(node.dir, 'token'), token, { mode: 0o600 });
    return {
      CONTAINERD_CONFIG: al2,
      PAUSE_TAR: join(node.dir, 'absent.tar'),
      ECR_PASSWORD_CMD: `cat ${join(node.dir, 'token')}`,
      CTR_PULL_ARGS: '--plain-http',
      PATH: `${shimDir}:${process.env.PATH}`,
      TMPDIR: node.dir,
    };
  };

  it('refuses an --image that is not the node configured sandbox image, pulls nothing', () => {
    const r = node.run('repair-pause-image.sh', ['--image', 'evil.example.com/x/pause:1'], al2Env());
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ status: 'failed', image: 'evil.example.com/x/pause:1' });
    expect(String(r.json.message)).toMatch(/not this node's sandbox image/);
    expect(readFileSync(argvLog, 'utf8')).not.toMatch(/images pull/);
    expect(node.present('evil.example.com/x/pause:1')).toBe(false);
  });

  it('without a configured sandbox image it repairs nothing, whatever --image says', () => {
    const empty = node.writeConfig('empty.toml', '');
    const r = node.run('repair-pause-image.sh', ['--image', node.registryImage], {
      ...al2Env(),
      CONTAINERD_CONFIG: empty,
    });
    expect(r.code).toBe(2);
    expect(node.present(node.registryImage)).toBe(false);
  });

  it('reads the kubelet --pod-infra-container-image flag when containerd names none', () => {
    const empty = node.writeConfig('empty2.toml', '');
    const r = node.run('repair-pause-image.sh', [], {
      ...al2Env(),
      CONTAINERD_CONFIG: empty,
      KUBELET_ARGS: `--node-ip=10.0.0.1 --pod-infra-container-image=${node.registryImage}`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', image: node.registryImage, method: 'ecr-pull' });
  });

  it('the token is on no command line, in no environment and in no output; its file is gone', () => {
    const r = node.run('repair-pause-image.sh', [], al2Env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', method: 'ecr-pull', pinned: true });
    const seen = readFileSync(argvLog, 'utf8');
    expect(seen).toMatch(/images pull .*--hosts-dir/);
    const basic = Buffer.from(`AWS:${REGISTRY_TOKEN}`).toString('base64');
    for (const text of [seen, r.stdout, r.stderr]) {
      expect(text).not.toContain(REGISTRY_TOKEN);
      expect(text).not.toContain(basic);
    }
    expect(readdirSync(node.dir).filter((f) => f.startsWith('pod-doctor-auth.'))).toEqual([]);
  });

  it('a rejected token is not echoed in the failure either', () => {
    const wrong = 'wrong-token-0123456789';
    const r = node.run('repair-pause-image.sh', [], al2Env(wrong));
    expect(r.code).not.toBe(0);
    expect(String(r.json.message)).toMatch(/401 Unauthorized/);
    for (const text of [readFileSync(argvLog, 'utf8'), r.stdout, r.stderr]) expect(text).not.toContain(wrong);
    expect(readdirSync(node.dir).filter((f) => f.startsWith('pod-doctor-auth.'))).toEqual([]);
  });
});
