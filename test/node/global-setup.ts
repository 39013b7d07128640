import { execFileSync } from 'node:child_process';

/** The node tier needs root and real binaries; say exactly what is missing instead of skipping. */
export default function setup(): void {
  const needed: Record<string, string> = {
    containerd: 'containerd',
    ctr: 'containerd',
    'docker-registry': 'docker-registry',
    htpasswd: 'apache2-utils',
    umoci: 'umoci',
    skopeo: 'skopeo',
  };
  const missing = new Set<string>();
  for (const [bin, pkg] of Object.entries(needed)) {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
    } catch {
      missing.add(pkg);
    }
  }
  if (missing.size > 0) {
    throw new Error(
      `node tier: missing ${[...missing].join(', ')}. Install with: sudo apt-get install -y ${[...missing].join(' ')} (or run bash scripts/install-test-prereqs.sh)`,
    );
  }
  if (process.getuid?.() !== 0) throw new Error('node tier: containerd needs root; run the tests as root (CI does)');
}
