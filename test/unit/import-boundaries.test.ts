import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * The layers of .dependency-cruiser.cjs hold on the whole project, and each rule fires on a small
 * project that breaks it (so a rule that matches nothing cannot pass for one that holds).
 */

const run = promisify(execFile);
const CONFIG = join(PROJECT_ROOT, '.dependency-cruiser.cjs');
const CLI = join(PROJECT_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const SOURCES = ['bin', 'bench', 'cli', 'demo', 'examples', 'lambdas', 'lib', 'local', 'scripts', 'ssm', 'test'];

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

/** Each violation as `rule: from → to`, sorted. */
async function violations(cwd: string, sources: readonly string[]): Promise<string[]> {
  const args = [CLI, '--config', CONFIG, '--output-type', 'json', ...sources];
  // depcruise exits non-zero when it finds violations; its report is on stdout either way.
  const out = await run(process.execPath, args, { cwd, maxBuffer: 256 * 1024 * 1024 }).catch(
    (e: { stdout?: string; stderr?: string }) => {
      if (!e.stdout) throw new Error(`dependency-cruiser failed: ${e.stderr}`);
      return { stdout: e.stdout };
    },
  );
  const report = JSON.parse(out.stdout) as { summary: { violations: Violation[] } };
  return [...new Set(report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`))].sort();
}

/**
 * Known breaks not yet mended (circles in the local runtime's workflow and Kubernetes API server):
 * this list only shrinks.
 */
const PENDING: readonly string[] = [
  'no-circular: local/kube-api-events.ts → local/kube-api-writes.ts',
  'no-circular: local/kube-api-server.ts → local/kube-api-writes.ts',
  'no-circular: local/local-approver.ts → local/local-workflow.ts',
  'no-circular: local/local-approver.ts → local/task-context.ts',
  'no-circular: local/local-workflow.ts → local/workflow-tasks.ts',
  'no-circular: local/task-context.ts → local/local-workflow.ts',
];

describe('import boundaries', () => {
  it('hold on the whole project: no circles, no import against the layers', { timeout: 180_000 }, async () => {
    expect(await violations(PROJECT_ROOT, SOURCES)).toEqual(PENDING);
  });

  it('keeps lambdas/core and lambdas/aws in rooms: no module lies loose beside them', () => {
    for (const layer of ['core', 'aws']) {
      const loose = readdirSync(join(PROJECT_ROOT, 'lambdas', layer), { withFileTypes: true }).filter(
        (e) => !e.isDirectory(),
      );
      expect(loose.map((e) => `${layer}/${e.name}`)).toEqual([]);
    }
  });

  describe('on a project that breaks each rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pod-doctor-boundaries-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
      'lambdas/core/clock.ts': "import { stack } from '../../lib/stack.js';\nexport const clock = stack;\n",
      'lambdas/core/names.ts': "export const TABLE = 'TABLE_NAME';\n",
      'lambdas/core/text/low.ts': "import { gate } from '../door/high.js';\nexport const low = gate;\n",
      'lambdas/core/door/high.ts': 'export const gate = 1;\n',
      'lambdas/core/voices/card.ts': "import { member } from '../fleet/member.js';\nexport const card = member;\n",
      'lambdas/core/fleet/member.ts': "export const member = 'm';\n",
      'lambdas/aws/door/act.ts':
        "import { read } from '../kubernetes/read.js';\nimport { near } from './near.js';\nexport const act = [read, near];\n",
      'lambdas/aws/door/near.ts': 'export const near = 1;\n',
      'lambdas/aws/kubernetes/read.ts': 'export const read = 1;\n',
      'lambdas/aws/runtime/plumbing.ts':
        "import { reader } from '../readers/reader.js';\nexport const plumbing = reader;\n",
      'lambdas/aws/readers/reader.ts': 'export const reader = 1;\n',
      'lambdas/aws/adapter.ts': "import { label } from '../../lib/label.js';\nexport const adapter = label;\n",
      'lambdas/handlers/entry.ts': 'export const handler = 1;\n',
      'lib/label.ts': "export const label = 'x';\n",
      'lib/stack.ts': [
        "import { adapter } from '../lambdas/aws/adapter.js';",
        "import { TABLE } from '../lambdas/core/names.js';",
        "import { handler } from '../lambdas/handlers/entry.js';",
        'export const stack = [adapter, TABLE, handler];',
        '',
      ].join('\n'),
      'local/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'local/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'local/double.ts': 'export const double = 2;\n',
      'demo/show.ts': "import { double } from '../local/double.js';\nexport const show = double;\n",
      'cli/tool.ts':
        "import { show } from '../demo/show.js';\nimport { double } from '../local/double.js';\nexport const tool = [show, double];\n",
      'cli/demo-command.ts': "import { show } from '../demo/show.js';\nexport const demo = show;\n",
      'bin/app.ts': "import { support } from '../test/support.js';\nexport const app = support;\n",
      'test/support.ts': "import { double } from '../local/double.js';\nexport const support = double;\n",
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }

    it('reports every rule, and nothing the layers allow', { timeout: 120_000 }, async () => {
      expect(await violations(dir, ['bin', 'cli', 'demo', 'lambdas', 'lib', 'local', 'test'])).toEqual([
        'aws-runtime-imports-below: lambdas/aws/runtime/plumbing.ts → lambdas/aws/readers/reader.ts',
        'aws-services-import-no-service: lambdas/aws/door/act.ts → lambdas/aws/kubernetes/read.ts',
        'core-imports-only-core: lambdas/core/clock.ts → lib/stack.ts',
        'core-text-imports-below: lambdas/core/text/low.ts → lambdas/core/door/high.ts',
        'core-voices-imports-below: lambdas/core/voices/card.ts → lambdas/core/fleet/member.ts',
        'demo-only-from-demo-entries: cli/tool.ts → demo/show.ts',
        'handlers-are-entry-points: lib/stack.ts → lambdas/handlers/entry.ts',
        'lambdas-import-no-lib: lambdas/aws/adapter.ts → lib/label.ts',
        'lambdas-import-no-lib: lambdas/core/clock.ts → lib/stack.ts',
        'lib-imports-no-adapter: lib/stack.ts → lambdas/aws/adapter.ts',
        'lib-imports-no-adapter: lib/stack.ts → lambdas/handlers/entry.ts',
        'local-only-for-tests-demo-bench: cli/tool.ts → local/double.ts',
        'no-circular: local/a.ts → local/b.ts',
        'production-imports-no-test: bin/app.ts → test/support.ts',
      ]);
    });
  });
});
