import { missingLocalNodePackages } from '../../local/local-node.js';

/** The node tier needs root and real binaries; say exactly what is missing instead of skipping. */
export default function setup(): void {
  const missing = missingLocalNodePackages();
  if (missing.length > 0) {
    throw new Error(
      `node tier: missing ${missing.join(', ')}. Install with: sudo apt-get install -y ${missing.join(' ')} (or run bash scripts/install-test-prereqs.sh)`,
    );
  }
  if (process.getuid?.() !== 0) throw new Error('node tier: containerd needs root; run the tests as root (CI does)');
}
