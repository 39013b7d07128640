import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../lib/constructs/paths.js';

export const REGISTRY_USER = 'AWS';
export const REGISTRY_TOKEN = 'ecr-token-for-tests';
export const AL2023_PAUSE = 'localhost/kubernetes/pause:latest';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The last stdout line parsed as JSON (the scripts' contract). */
  readonly json: Record<string, unknown>;
}

/** Binaries a local node needs, with the Debian package that ships each. */
export const LOCAL_NODE_PACKAGES: Readonly<Record<string, string>> = {
  containerd: 'containerd',
  ctr: 'containerd',
  'docker-registry': 'docker-registry',
  htpasswd: 'apache2-utils',
  umoci: 'umoci',
  skopeo: 'skopeo',
  strace: 'strace',
};

/** Debian packages missing for a local node (empty when it can run). */
export function missingLocalNodePackages(): string[] {
  const missing = new Set<string>();
  for (const [bin, pkg] of Object.entries(LOCAL_NODE_PACKAGES)) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) missing.add(pkg);
  }
  return [...missing];
}

/**
 * A real containerd and a real Docker distribution registry with htpasswd auth on loopback (it
 * answers 401 to a credential-less pull, as ECR does), plus a pause image pushed to it and
 * exported to a pause.tar as AL2023 bakes it.
 */
export class LocalNode {
  readonly dir = mkdtempSync('/tmp/pod-doctor-node.');
  readonly socket = join(this.dir, 'containerd.sock');
  readonly pauseTar = join(this.dir, 'pause.tar');
  registryPort = 0;
  private readonly procs: ChildProcess[] = [];

  get registryImage(): string {
    return `127.0.0.1:${this.registryPort}/eks/pause:3.10`;
  }

  async start(): Promise<this> {
    this.registryPort = await freePort();
    writeFileSync(
      join(this.dir, 'containerd.toml'),
      `version = 2\nroot = "${this.dir}/root"\nstate = "${this.dir}/state"\n[grpc]\naddress = "${this.socket}"\n`,
    );
    this.procs.push(spawn('containerd', ['--config', join(this.dir, 'containerd.toml')], { stdio: 'ignore' }));
    const htpasswd = execFileSync('htpasswd', ['-Bbn', REGISTRY_USER, REGISTRY_TOKEN], { encoding: 'utf8' });
    writeFileSync(join(this.dir, 'htpasswd'), htpasswd);
    writeFileSync(
      join(this.dir, 'registry.yml'),
      [
        'version: 0.1',
        `storage: {filesystem: {rootdirectory: ${this.dir}/registry}}`,
        `http: {addr: 127.0.0.1:${this.registryPort}}`,
        `auth: {htpasswd: {realm: pod-doctor-test, path: ${this.dir}/htpasswd}}`,
      ].join('\n'),
    );
    this.procs.push(spawn('docker-registry', ['serve', join(this.dir, 'registry.yml')], { stdio: 'ignore' }));
    await waitFor(() => existsSync(this.socket) && this.ctr(['version']).status === 0, 'containerd');
    await waitFor(
      () => spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${this.registryPort}`]).status === 0,
      'registry',
    );
    this.buildPauseImage();
    return this;
  }

  /** A tiny OCI image standing in for pause (umoci), pushed with credentials (skopeo), exported as pause.tar. */
  private buildPauseImage(): void {
    const sh = (cmd: string) => execFileSync('bash', ['-euo', 'pipefail', '-c', cmd], { cwd: this.dir, stdio: 'pipe' });
    sh(
      [
        'umoci init --layout img',
        'umoci new --image img:3.10',
        'umoci unpack --rootless --image img:3.10 bundle',
        "printf '#!/bin/sh\\nexec sleep infinity\\n' > bundle/rootfs/pause && chmod +x bundle/rootfs/pause",
        'umoci repack --image img:3.10 bundle',
        `umoci config --image img:3.10 --config.entrypoint /pause --architecture ${goArch()} --os linux`,
      ].join(' && '),
    );
    sh(
      `skopeo copy --dest-tls-verify=false --dest-creds ${REGISTRY_USER}:${REGISTRY_TOKEN} oci:${this.dir}/img:3.10 docker://${this.registryImage}`,
    );
    this.mustCtr([
      'images',
      'pull',
      '--plain-http',
      '--user',
      `${REGISTRY_USER}:${REGISTRY_TOKEN}`,
      this.registryImage,
    ]);
    this.mustCtr(['images', 'tag', this.registryImage, AL2023_PAUSE]);
    this.mustCtr(['images', 'export', this.pauseTar, AL2023_PAUSE]);
    this.removeImage(this.registryImage, AL2023_PAUSE);
  }

  ctr(args: readonly string[]) {
    return spawnSync('ctr', ['--address', this.socket, '--namespace', 'k8s.io', ...args], { encoding: 'utf8' });
  }

  private mustCtr(args: readonly string[]): string {
    const r = this.ctr(args);
    if (r.status !== 0) throw new Error(`ctr ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  images(): Map<string, string> {
    const out = this.mustCtr(['images', 'ls']).trim().split('\n').slice(1);
    return new Map(out.map((l) => [l.split(/\s+/)[0], l] as const));
  }

  present(ref: string): boolean {
    return this.images().has(ref);
  }

  pinned(ref: string): boolean {
    return this.images().get(ref)?.includes('io.cri-containerd.pinned=pinned') ?? false;
  }

  removeImage(...refs: string[]): void {
    for (const ref of refs) this.ctr(['images', 'rm', ref]);
  }

  /** Writes a containerd config file naming the sandbox image the way containerd 1.x or 2.x does. */
  writeConfig(name: string, image: string, format: 'containerd1' | 'containerd2' = 'containerd1'): string {
    const path = join(this.dir, name);
    writeFileSync(
      path,
      format === 'containerd1'
        ? `version = 2\n[plugins."io.containerd.grpc.v1.cri"]\n  sandbox_image = "${image}"\n`
        : `version = 3\n[plugins.'io.containerd.cri.v1.images']\n  snapshotter = "overlayfs"\n[plugins.'io.containerd.cri.v1.images'.pinned_images]\n  sandbox = '${image}'\n`,
    );
    return path;
  }

  /** Runs a script from ssm/ against this node. */
  run(script: string, args: readonly string[], env: Record<string, string> = {}): RunResult {
    return parseRun(
      spawnSync('bash', [join(PROJECT_ROOT, 'ssm', script), ...args], {
        encoding: 'utf8',
        env: { ...process.env, CONTAINERD_ADDRESS: this.socket, LOCK_FILE: join(this.dir, 'lock'), ...env },
        timeout: 120_000,
      }),
    );
  }

  stop(): void {
    for (const p of this.procs) p.kill('SIGTERM');
    // A test may have restarted containerd outside our handle (restart-runtime.sh): find it by its config.
    spawnSync('pkill', ['-f', `containerd --config ${this.dir}/containerd.toml`]);
    spawnSync('sleep', ['0.5']);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function parseRun(r: { status: number | null; stdout: string; stderr: string }): RunResult {
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(last) as Record<string, unknown>;
  } catch {
    json = { unparsable: last };
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

function goArch(): string {
  return process.arch === 'arm64' ? 'arm64' : 'amd64';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start within ${ms} ms`);
}
