import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * What an installed pod-doctor loads at run time: the construct library (lib/index.ts) and the CLI
 * (bin/pod-doctor.ts with every command it imports lazily), without the local runtime the package leaves
 * out (demo/, local/). The Lambda handlers ship pre-bundled (dist/assets), so what only they import
 * is a build-time (development) dependency; type-only imports vanish from the JavaScript.
 */
async function packagesLoadedAtRunTime(): Promise<Set<string>> {
  const r = await build({
    entryPoints: [join(PROJECT_ROOT, 'bin', 'pod-doctor.ts'), join(PROJECT_ROOT, 'lib', 'index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    outdir: join(PROJECT_ROOT, 'cdk.out', 'runtime-dependencies'),
    packages: 'external',
    logLevel: 'error',
    plugins: [
      {
        name: 'not-shipped',
        setup(b) {
          b.onResolve({ filter: /(^|\/)(demo|local)\// }, (a) => ({ path: a.path, external: true }));
        },
      },
    ],
  });
  const packages = new Set<string>();
  for (const output of Object.values(r.metafile.outputs)) {
    for (const i of output.imports) {
      if (!i.external || i.path.startsWith('node:') || i.path.startsWith('.')) continue;
      const parts = i.path.split('/');
      packages.add(i.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return packages;
}

describe('the runtime dependencies of the package', () => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
  };
  let loaded: Set<string>;
  beforeAll(async () => {
    loaded = await packagesLoadedAtRunTime();
  }, 60_000);

  it('every package the library or the CLI loads is a dependency or a peer dependency', () => {
    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    expect([...loaded].filter((p) => !declared.has(p))).toEqual([]);
  });

  it('no dependency is unused, used only for its types, or only inside the pre-bundled handlers', () => {
    expect(Object.keys(pkg.dependencies).filter((p) => !loaded.has(p))).toEqual([]);
    // The two the package had that way: the idempotency utility (never imported) and the EC2 client (types only).
    expect(pkg.dependencies).not.toHaveProperty('@aws-lambda-powertools/idempotency');
    expect(pkg.dependencies).not.toHaveProperty('@aws-sdk/client-ec2');
  });
});
