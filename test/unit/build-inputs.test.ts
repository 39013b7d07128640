import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_STAMP, buildInputsDigest, buildIsCurrent } from '../../scripts/build-inputs.js';

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'pod-doctor-build-inputs-'));
  for (const d of ['lib/constructs', 'lambdas/handlers', 'bin', 'node_modules/x', 'dist']) {
    mkdirSync(join(root, d), { recursive: true });
  }
  writeFileSync(join(root, 'package.json'), '{"name":"p"}');
  writeFileSync(join(root, 'lib/constructs/a.ts'), 'export const a = 1;');
  writeFileSync(join(root, 'lambdas/handlers/h.ts'), 'export const h = 1;');
  writeFileSync(join(root, 'node_modules/x/index.js'), 'x');
  return root;
}

describe('a build skips when its inputs are unchanged', () => {
  it('the digest changes with a source file, a new file and the lock file, not with dist/ or node_modules/', () => {
    const root = project();
    const d0 = buildInputsDigest(root);
    expect(buildInputsDigest(root)).toBe(d0);
    writeFileSync(join(root, 'dist/out.js'), 'built');
    writeFileSync(join(root, 'node_modules/x/index.js'), 'changed');
    expect(buildInputsDigest(root)).toBe(d0);
    writeFileSync(join(root, 'lib/constructs/a.ts'), 'export const a = 2;');
    const d1 = buildInputsDigest(root);
    expect(d1).not.toBe(d0);
    writeFileSync(join(root, 'lambdas/handlers/g.ts'), '');
    const d2 = buildInputsDigest(root);
    expect(d2).not.toBe(d1);
    writeFileSync(join(root, 'package-lock.json'), '{}');
    expect(buildInputsDigest(root)).not.toBe(d2);
  });

  it('paths count: the same content under another path is another input set', () => {
    const root = project();
    const before = buildInputsDigest(root);
    rmSync(join(root, 'lib/constructs/a.ts'));
    writeFileSync(join(root, 'bin/a.ts'), 'export const a = 1;');
    expect(buildInputsDigest(root)).not.toBe(before);
  });

  it('dist/ is current only with the same stamp and every expected output present', () => {
    const root = project();
    const dist = join(root, 'dist');
    const digest = buildInputsDigest(root);
    const outputs = ['bin/pod-doctor.js', 'assets/h/index.mjs'];
    expect(buildIsCurrent(dist, digest, outputs)).toBe(false);
    writeFileSync(join(dist, BUILD_STAMP), `${digest}\n`);
    expect(buildIsCurrent(dist, digest, outputs)).toBe(false);
    mkdirSync(join(dist, 'bin'));
    mkdirSync(join(dist, 'assets/h'), { recursive: true });
    writeFileSync(join(dist, 'bin/pod-doctor.js'), '');
    writeFileSync(join(dist, 'assets/h/index.mjs'), '');
    expect(buildIsCurrent(dist, digest, outputs)).toBe(true);
    expect(buildIsCurrent(dist, 'f'.repeat(64), outputs)).toBe(false);
  });
});
