import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { AL2023_PAUSE, LocalNode, parseRun } from '../../local/local-node.js';
import { buildDocumentContent, NODE_COMMANDS, type NodeCommandSpec } from '../../ssm/documents.js';

/** Runs a document's runCommand the way the SSM agent does: the lines as one sh script, parameters as SSM_* variables. */
function runDocument(spec: NodeCommandSpec, params: Record<string, string>, env: Record<string, string>) {
  const lib = readFileSync(join(PROJECT_ROOT, 'ssm', 'lib.sh'), 'utf8');
  const script = readFileSync(join(PROJECT_ROOT, 'ssm', spec.script), 'utf8');
  const content = buildDocumentContent(spec, lib, script) as {
    mainSteps: { inputs: { runCommand: string[] } }[];
  };
  const ssmEnv = Object.fromEntries(Object.entries(params).map(([k, v]) => [`SSM_${k}`, v]));
  return parseRun(
    spawnSync('sh', ['-c', content.mainSteps[0].inputs.runCommand.join('\n')], {
      encoding: 'utf8',
      env: { ...process.env, ...env, ...ssmEnv },
    }),
  );
}

describe('SSM documents run on real containerd exactly as embedded', () => {
  let node: LocalNode;
  let env: Record<string, string>;

  beforeAll(async () => {
    node = await new LocalNode().start();
    env = {
      CONTAINERD_ADDRESS: node.socket,
      CONTAINERD_CONFIG: node.writeConfig('al2023.toml', AL2023_PAUSE),
      PAUSE_TAR: node.pauseTar,
      LOCK_FILE: join(node.dir, 'lock'),
    };
  });
  afterAll(() => node?.stop());
  beforeEach(() => node.removeImage(AL2023_PAUSE));

  it('the repair document restores and pins the pause image', () => {
    const r = runDocument(NODE_COMMANDS.repairPauseImage, { Image: '', DryRun: 'false' }, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ status: 'repaired', method: 'reimport' });
    expect(node.pinned(AL2023_PAUSE)).toBe(true);
  });

  it('the DryRun parameter reaches the script as --dry-run', () => {
    const r = runDocument(NODE_COMMANDS.repairPauseImage, { Image: AL2023_PAUSE, DryRun: 'true' }, env);
    expect(r.json).toMatchObject({ status: 'would-repair', dryRun: true });
    expect(node.present(AL2023_PAUSE)).toBe(false);
  });

  it('a hostile Image value that got past SSM still reaches the script as data, and is refused', () => {
    const r = runDocument(
      NODE_COMMANDS.repairPauseImage,
      { Image: '$(touch /tmp/pod-doctor-doc-pwned)', DryRun: 'false' },
      env,
    );
    expect(r.code).toBe(2);
    expect(existsSync('/tmp/pod-doctor-doc-pwned')).toBe(false);
  });

  it('the probe document reports the missing pause image as failing findings', () => {
    const r = runDocument(NODE_COMMANDS.probeNode, { Region: '' }, env);
    expect(r.code, r.stderr).toBe(0);
    const findings = r.json.findings as { id: string; status: string }[];
    expect(findings.find((f) => f.id === 'node.sandbox-image.present')?.status).toBe('fail');
  });

  it('leaves no temporary files behind', () => {
    const before = spawnSync('sh', ['-c', 'ls -d /tmp/pod-doctor.* 2>/dev/null | wc -l'], { encoding: 'utf8' }).stdout;
    runDocument(NODE_COMMANDS.probeNode, { Region: '' }, env);
    const after = spawnSync('sh', ['-c', 'ls -d /tmp/pod-doctor.* 2>/dev/null | wc -l'], { encoding: 'utf8' }).stdout;
    expect(after).toBe(before);
  });
});
