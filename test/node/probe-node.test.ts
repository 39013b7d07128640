import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { AL2023_PAUSE, LocalNode, parseRun, type RunResult } from '../../local/local-node.js';

const finding = (r: RunResult, id: string) =>
  (r.json.findings as { id: string; status: string; summary: string; evidence: string }[]).find((f) => f.id === id);

describe('probe-node.sh on real containerd', () => {
  let node: LocalNode;
  let env: Record<string, string>;

  beforeAll(async () => {
    node = await new LocalNode().start();
    const osRelease = join(node.dir, 'os-release');
    writeFileSync(osRelease, 'NAME="Amazon Linux"\nID="amzn"\nVERSION_ID="2023"\nPRETTY_NAME="Amazon Linux 2023"\n');
    env = {
      CONTAINERD_CONFIG: node.writeConfig('al2023.toml', AL2023_PAUSE, 'containerd2'),
      PAUSE_TAR: node.pauseTar,
      OS_RELEASE: osRelease,
      KUBELET_ARGS: `/usr/bin/kubelet --config /etc/kubernetes/kubelet/config.json --pod-infra-container-image=${AL2023_PAUSE}`,
    };
  });
  afterAll(() => node?.stop());

  it('finds the missing, unpinned pause image on a broken node', () => {
    node.removeImage(AL2023_PAUSE);
    const r = node.run('probe-node.sh', ['--endpoint', `127.0.0.1:${node.registryPort}`], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.node).toMatchObject({ os: 'amzn', osVersion: '2023', sandboxImage: AL2023_PAUSE });
    expect(finding(r, 'node.sandbox-image.configured')?.status).toBe('pass');
    expect(finding(r, 'node.sandbox-image.present')?.status).toBe('fail');
    expect(finding(r, 'node.sandbox-image.pinned')?.status).toBe('fail');
    expect(finding(r, 'node.pause-tarball')?.status).toBe('pass');
    expect(finding(r, 'node.runtime')?.status).toBe('pass');
  });

  it('reports a healthy node after the repair', () => {
    node.run('repair-pause-image.sh', [], { ...env, ECR_PASSWORD_CMD: 'false' });
    const r = node.run('probe-node.sh', ['--endpoint', `127.0.0.1:${node.registryPort}`], env);
    expect(finding(r, 'node.sandbox-image.present')?.status).toBe('pass');
    expect(finding(r, 'node.sandbox-image.pinned')?.status).toBe('pass');
    expect(finding(r, 'node.registry-reachable')?.status).toBe('pass');
  });

  it('warns when kubelet and containerd disagree on the sandbox image', () => {
    const r = node.run('probe-node.sh', [], {
      ...env,
      KUBELET_ARGS: '--pod-infra-container-image=registry.k8s.io/pause:3.9',
    });
    const f = finding(r, 'node.sandbox-image.configured');
    expect(f?.status).toBe('warn');
    expect(f?.evidence).toContain('registry.k8s.io/pause:3.9');
  });

  it('fails reachability for a closed port and names it', () => {
    const r = node.run('probe-node.sh', ['--endpoint', '127.0.0.1:9'], env);
    const f = finding(r, 'node.registry-reachable');
    expect(f?.status).toBe('fail');
    expect(f?.summary).toContain('127.0.0.1:9');
  });

  it('warns on an AL2023 node whose pause tarball is gone', () => {
    const r = node.run('probe-node.sh', [], { ...env, PAUSE_TAR: join(node.dir, 'gone.tar') });
    expect(finding(r, 'node.pause-tarball')?.status).toBe('warn');
  });

  it('reports disk use against the kubelet image GC threshold from the kubelet config', () => {
    const kubeletConfig = join(node.dir, 'kubelet.json');
    writeFileSync(kubeletConfig, '{"imageGCHighThresholdPercent": 1, "imageGCLowThresholdPercent": 0}');
    const r = node.run('probe-node.sh', [], { ...env, KUBELET_CONFIG: kubeletConfig });
    const f = finding(r, 'node.disk');
    expect(f?.status).toBe('fail');
    expect(f?.evidence).toContain('kubelet image GC high 1%');
  });

  it('counts processes, threads and zombies from /proc', () => {
    const r = node.run('probe-node.sh', [], env);
    expect(finding(r, 'node.pids')?.evidence).toMatch(/processes \d+, threads \d+, pid_max \d+/);
    expect(['pass', 'warn', 'fail']).toContain(finding(r, 'node.zombies')?.status);
    expect(finding(r, 'node.top-pid-consumers')?.evidence).toMatch(/\(pid \d+\) \d+ threads/);
  });

  it('rejects an endpoint argument with shell metacharacters', () => {
    const r = node.run('probe-node.sh', ['--endpoint', '$(reboot):443'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--endpoint needs host:port');
  });

  /**
   * A /proc of `n` processes (every tenth a zombie of parent 4242, pid 2 with 5000 threads) on a
   * node whose pid_max is nearly used up.
   */
  const fakeProc = (n: number): string => {
    const proc = join(node.dir, `proc-${n}`);
    mkdirSync(join(proc, 'sys', 'kernel'), { recursive: true });
    writeFileSync(join(proc, 'sys', 'kernel', 'pid_max'), '6000\n');
    writeFileSync(join(proc, 'sys', 'kernel', 'threads-max'), '100000\n');
    for (let pid = 1; pid <= n; pid++) {
      mkdirSync(join(proc, String(pid)));
      const zombie = pid % 10 === 0;
      const threads = pid === 2 ? 5000 : 1;
      writeFileSync(
        join(proc, String(pid), 'status'),
        `Name:\t${pid === 2 ? 'java app' : zombie ? 'defunct' : 'sleep'}\nUmask:\t0022\nState:\t${zombie ? 'Z (zombie)' : 'S (sleeping)'}\nTgid:\t${pid}\nPid:\t${pid}\nPPid:\t${zombie ? 4242 : 1}\nThreads:\t${threads}\n`,
      );
    }
    return proc;
  };

  /** Runs the probe under strace and counts the processes it creates (threads excluded). */
  const tracedProbe = (proc: string) => {
    const trace = join(node.dir, `trace-${proc.split('-').at(-1)}`);
    const r = spawnSync(
      'strace',
      [
        '-f',
        '-qq',
        '-e',
        'trace=fork,vfork,clone,clone3',
        '-e',
        'signal=none',
        '-o',
        trace,
        'bash',
        join(PROJECT_ROOT, 'ssm', 'probe-node.sh'),
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, ...env, CONTAINERD_ADDRESS: node.socket, PROC: proc, KUBELET_ARGS: env.KUBELET_ARGS },
        timeout: 120_000,
      },
    );
    const forks = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => /\b(v?fork|clone3?)\(/.test(l) && !l.includes('CLONE_THREAD') && !/= -1 /.test(l)).length;
    return { run: parseRun(r), forks };
  };

  it('reads /proc with a bounded number of forks, however many processes the node runs', () => {
    const small = tracedProbe(fakeProc(20));
    const large = tracedProbe(fakeProc(2000));
    expect(large.run.code, large.run.stderr).toBe(0);
    // A fork per process (the old loop forked cat + awk for each) would add thousands here.
    expect(large.forks - small.forks).toBeLessThanOrEqual(2);
    expect(large.forks).toBeLessThan(200);
    const pids = finding(large.run, 'node.pids');
    expect(pids?.evidence).toBe('processes 2000, threads 6999, pid_max 6000, threads-max 100000');
    expect(pids?.status).toBe('fail');
    const zombies = finding(large.run, 'node.zombies');
    expect(zombies?.summary).toBe('200 zombie processes');
    expect(zombies?.evidence).toMatch(/^ppid 4242: 200 zombies;/);
    expect(finding(large.run, 'node.top-pid-consumers')?.evidence).toMatch(/^java app \(pid 2\) 5000 threads; /);
  });
});
