import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AL2023_PAUSE, LocalNode, REGISTRY_TOKEN } from '../../local/local-node.js';

describe('repair-pause-image.sh on real containerd', () => {
  let node: LocalNode;
  let al2023: string;
  let al2: string;

  beforeAll(async () => {
    node = await new LocalNode().start();
    al2023 = node.writeConfig('al2023.toml', AL2023_PAUSE);
    al2 = node.writeConfig('al2.toml', node.registryImage);
  });
  afterAll(() => node?.stop());
  beforeEach(() => node.removeImage(AL2023_PAUSE, node.registryImage));

  const al2023Env = () => ({ CONTAINERD_CONFIG: al2023, PAUSE_TAR: node.pauseTar, ECR_PASSWORD_CMD: 'false' });
  const al2Env = (token = REGISTRY_TOKEN) => ({
    CONTAINERD_CONFIG: al2,
    PAUSE_TAR: join(node.dir, 'absent.tar'),
    ECR_PASSWORD_CMD: `echo ${token}`,
    CTR_PULL_ARGS: '--plain-http',
  });

  it('re-imports a deleted AL2023 pause image from the tarball and pins it', () => {
    expect(node.present(AL2023_PAUSE)).toBe(false);
    const r = node.run('repair-pause-image.sh', [], al2023Env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', image: AL2023_PAUSE, method: 'reimport', pinned: true });
    expect(node.present(AL2023_PAUSE)).toBe(true);
    expect(node.pinned(AL2023_PAUSE)).toBe(true);
  });

  it('reads the sandbox image from a containerd 2.x pinned_images config', () => {
    const config = node.writeConfig('containerd2.toml', AL2023_PAUSE, 'containerd2');
    const r = node.run('repair-pause-image.sh', [], { ...al2023Env(), CONTAINERD_CONFIG: config });
    expect(r.json).toMatchObject({ status: 'repaired', image: AL2023_PAUSE, method: 'reimport' });
    expect(node.pinned(AL2023_PAUSE)).toBe(true);
  });

  it('reports healthy and changes nothing when run again', () => {
    node.run('repair-pause-image.sh', [], al2023Env());
    const before = node.images().get(AL2023_PAUSE);
    const r = node.run('repair-pause-image.sh', [], al2023Env());
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'healthy', method: 'none', pinned: true });
    expect(node.images().get(AL2023_PAUSE)).toBe(before);
  });

  it('only pins an image that is present but unpinned', () => {
    node.run('repair-pause-image.sh', [], al2023Env());
    node.ctr(['images', 'label', AL2023_PAUSE, 'io.cri-containerd.pinned=']);
    expect(node.pinned(AL2023_PAUSE)).toBe(false);
    const r = node.run('repair-pause-image.sh', [], al2023Env());
    expect(r.json).toMatchObject({ status: 'repaired', method: 'pin', pinned: true });
    expect(node.pinned(AL2023_PAUSE)).toBe(true);
  });

  it('dry run says would-repair and leaves the image store untouched', () => {
    const before = [...node.images().keys()].sort();
    const r = node.run('repair-pause-image.sh', ['--dry-run'], al2023Env());
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ status: 'would-repair', method: 'reimport', dryRun: true, pinned: false });
    expect([...node.images().keys()].sort()).toEqual(before);
  });

  it('the registry answers 401 to a credential-less pull, exactly as ECR does to containerd', () => {
    const r = node.ctr(['images', 'pull', '--plain-http', node.registryImage]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/401 Unauthorized/);
  });

  it('pulls an AL2 pause image with the token command and pins it', () => {
    const r = node.run('repair-pause-image.sh', [], al2Env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', image: node.registryImage, method: 'ecr-pull', pinned: true });
    expect(node.pinned(node.registryImage)).toBe(true);
  });

  it('fails with the registry 401 in the message when the token is wrong', () => {
    const r = node.run('repair-pause-image.sh', [], al2Env('not-the-token'));
    expect(r.code).not.toBe(0);
    expect(r.json).toMatchObject({ status: 'failed', method: 'ecr-pull', pinned: false });
    expect(String(r.json.message)).toMatch(/401 Unauthorized/);
    expect(r.stderr).toMatch(/401 Unauthorized/);
    expect(node.present(node.registryImage)).toBe(false);
  });

  it('fails clearly when the token command itself fails', () => {
    const r = node.run('repair-pause-image.sh', [], { ...al2Env(), ECR_PASSWORD_CMD: 'false' });
    expect(r.code).not.toBe(0);
    expect(String(r.json.message)).toMatch(/could not get an ECR token/);
  });

  it.each([
    ['command substitution', '$(touch /tmp/pod-doctor-pwned)'],
    ['backticks', '`touch /tmp/pod-doctor-pwned`'],
    ['a semicolon', 'localhost/kubernetes/pause:latest;touch /tmp/pod-doctor-pwned'],
    ['a newline', 'localhost/kubernetes/pause:latest\ntouch /tmp/pod-doctor-pwned'],
    ['a space', 'localhost/kubernetes/pause:latest --plain-http'],
  ])('refuses an --image with %s and runs nothing', (_, image) => {
    const r = node.run('repair-pause-image.sh', ['--image', image], al2023Env());
    expect(r.code).toBe(2);
    expect(r.json.status).toBe('failed');
    expect(existsSync('/tmp/pod-doctor-pwned')).toBe(false);
    expect(node.present(AL2023_PAUSE)).toBe(false);
  });

  it('refuses to repair a Bottlerocket node in place and says why', () => {
    const osRelease = join(node.dir, 'os-release-bottlerocket');
    writeFileSync(osRelease, 'NAME=Bottlerocket\nID=bottlerocket\nVERSION_ID=1.20.0\n');
    const r = node.run('repair-pause-image.sh', [], { ...al2023Env(), OS_RELEASE: osRelease });
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ status: 'failed', method: 'bottlerocket-restart' });
  });
});

describe('image references without a tag', () => {
  let node: LocalNode;
  beforeAll(async () => {
    node = await new LocalNode().start();
  });
  afterAll(() => node?.stop());

  it('repairs and pins localhost/kubernetes/pause (as kubelet logs it) as the :latest image containerd uses', () => {
    const config = node.writeConfig('untagged.toml', 'localhost/kubernetes/pause');
    const r = node.run('repair-pause-image.sh', ['--image', 'localhost/kubernetes/pause'], {
      CONTAINERD_CONFIG: config,
      PAUSE_TAR: node.pauseTar,
      ECR_PASSWORD_CMD: 'false',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', image: AL2023_PAUSE });
    expect(node.pinned(AL2023_PAUSE)).toBe(true);
    const probe = node.run('probe-node.sh', [], {
      CONTAINERD_CONFIG: config,
      PAUSE_TAR: node.pauseTar,
      KUBELET_ARGS: '--pod-infra-container-image=localhost/kubernetes/pause',
    });
    const f = (probe.json.findings as { id: string; status: string }[]).filter((x) =>
      x.id.startsWith('node.sandbox-image'),
    );
    expect(f.map((x) => x.status)).toEqual(['pass', 'pass', 'pass']);
  });
});
