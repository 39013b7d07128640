import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNode } from '../../local/local-node.js';

describe('collect-logs.sh', () => {
  let node: LocalNode;
  beforeAll(async () => {
    node = await new LocalNode().start();
  });
  afterAll(() => node?.stop());

  it('builds a bundle with the fallback collector and uploads it with its SHA-256', () => {
    const bucketDir = join(node.dir, 'bucket');
    const upload = join(node.dir, 'upload.sh');
    // Stands in for `aws s3api put-object --if-none-match` on s3://BUCKET/KEY: stores the object under bucketDir/KEY.
    writeFileSync(
      upload,
      `#!/bin/sh\nset -eu\nkey=\${2#s3://*/}\nmkdir -p "${bucketDir}/$(dirname "$key")"\ncp "$1" "${bucketDir}/$key"\n`,
    );
    const r = node.run('collect-logs.sh', ['--bucket', 'evidence-bucket', '--prefix', 'incidents/inc-1'], {
      WORK_DIR: node.dir,
      UPLOAD_CMD: `sh ${upload}`,
      // Stands in for `aws sts get-caller-identity`: an EC2 instance role session's user id.
      CALLER_ID_CMD: 'echo AROAEXAMPLEID:i-0a1b2c3d4e5f60718',
      LOG_COLLECTOR: join(node.dir, 'absent'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'uploaded', collector: 'fallback' });
    const key = String(r.json.key);
    // Under the node's own prefix: the only one the bucket policy lets its role write.
    expect(key).toMatch(/^nodes\/AROAEXAMPLEID:i-0a1b2c3d4e5f60718\/incidents\/inc-1\/pod-doctor_.*\.tar\.gz$/);
    const stored = readFileSync(join(bucketDir, key));
    expect(createHash('sha256').update(stored).digest('hex')).toBe(r.json.sha256);
    expect(stored.length).toBe(r.json.bytes);
  });

  it('runs the node’s own eks-log-collector.sh when present', () => {
    const collector = join(node.dir, 'eks-log-collector.sh');
    const outDir = join(node.dir, 'var-log');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      collector,
      `#!/bin/sh\nf=${outDir}/eks_i-0test_$(date +%s%N).tar.gz\necho data > "$f"\necho "Done... your bundled logs are located in $f"\n`,
      { mode: 0o755 },
    );
    const r = node.run('collect-logs.sh', [], {
      WORK_DIR: node.dir,
      LOG_COLLECTOR: collector,
      COLLECTOR_OUTPUT_DIR: outDir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'collected', collector: 'eks-log-collector' });
  });

  it('refuses below the free-space floor', () => {
    const r = node.run('collect-logs.sh', [], { WORK_DIR: node.dir, MIN_FREE_KB: String(1024 ** 4) });
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ status: 'failed' });
    expect(String(r.json.message)).toMatch(/refusing to collect/);
  });

  it.each([['../../etc'], ['a;reboot'], ['$(reboot)']])('rejects the key prefix %s', (prefix) => {
    const r = node.run('collect-logs.sh', ['--bucket', 'b-1', '--prefix', prefix], { WORK_DIR: node.dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--prefix needs');
  });
});

describe('restart-runtime.sh', () => {
  it('dry run names what it would restart', () => {
    const node = new LocalNode();
    try {
      const r = node.run('restart-runtime.sh', ['--target', 'both', '--dry-run']);
      expect(r.code).toBe(0);
      expect(r.json).toMatchObject({ status: 'would-restart', target: 'both', dryRun: true });
      expect(String(r.json.message)).toBe('would restart containerd kubelet');
    } finally {
      node.stop();
    }
  });

  it('rejects an unknown target', () => {
    const node = new LocalNode();
    try {
      const r = node.run('restart-runtime.sh', ['--target', 'kubelet;reboot']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('--target must be kubelet, containerd or both');
    } finally {
      node.stop();
    }
  });

  it('restarts containerd then kubelet, and reports failure while kubelet stays unhealthy', async () => {
    const node = await new LocalNode().start();
    try {
      // No systemd here: a systemctl stand-in that restarts this test's real containerd process.
      const fake = join(node.dir, 'systemctl');
      writeFileSync(
        fake,
        `#!/bin/bash\nset -eu\ncase "$1" in\n restart) [ "$2" = containerd ] && { pkill -f "containerd --config ${node.dir}/containerd.toml"; sleep 0.3; (containerd --config ${node.dir}/containerd.toml >/dev/null 2>&1 &) ; } ; echo "$2" >> ${node.dir}/restarted ;;\n is-active) exit 0 ;;\nesac\n`,
        { mode: 0o755 },
      );
      const r = node.run('restart-runtime.sh', ['--target', 'containerd'], {
        SYSTEMCTL: fake,
        KUBELET_HEALTHZ: 'http://127.0.0.1:1/healthz',
        HEALTH_TIMEOUT: '5',
      });
      // kubelet is not running here, so health stays false and the script must say so, not claim success.
      expect(r.code).toBe(1);
      expect(r.json).toMatchObject({ status: 'failed', healthy: false });
      expect(readFileSync(join(node.dir, 'restarted'), 'utf8').trim().split('\n')).toEqual(['containerd', 'kubelet']);
      expect(node.ctr(['version']).status).toBe(0);
    } finally {
      node.stop();
    }
  });
});
