import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { corpus } from '../support/fixtures.js';

function cli(args: string[], input?: string) {
  return spawnSync('node', [join(PROJECT_ROOT, 'bin', 'pod-doctor.js'), ...args], {
    input,
    encoding: 'utf8',
    cwd: PROJECT_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('pod-doctor CLI', () => {
  it('--help lists the subcommands that have landed', () => {
    const r = cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\s+classify\s+/m);
    expect(r.stdout).toMatch(/^\s+config\s+/m);
  });

  it('rejects an unknown command with exit code 2 and the usage', () => {
    const r = cli(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it('classify writes one JSON object per input line, in order, and survives malformed lines', () => {
    const lines = corpus();
    const cloudtrail = JSON.stringify(
      JSON.parse(
        readFileSync(join(PROJECT_ROOT, 'test/fixtures/events/create-eni-insufficient-addresses.json'), 'utf8'),
      ),
    );
    const input = [...lines.map((l) => l.line), '{"oops', '\u0000\u0001binary', cloudtrail, ''].join('\n');
    const r = cli(['classify'], input);
    expect(r.status).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(lines.length + 3);
    expect(out.slice(0, lines.length).map((o) => o.class)).toEqual(lines.map((l) => l.class));
    expect(out[lines.length]).toMatchObject({ class: 'unknown', error: expect.stringMatching(/invalid JSON/) });
    expect(out[lines.length + 1]).toMatchObject({ class: 'unknown' });
    expect(out[lines.length + 2]).toMatchObject({
      class: 'ip-exhaustion',
      entities: { subnetId: 'subnet-0a1b2c3d4e5f67890' },
    });
  });

  it('config prints the defaults and names a bad key', () => {
    expect(JSON.parse(cli(['config']).stdout)).toMatchObject({
      modes: { 'sandbox-image': 'auto' },
      limits: { incidentWindowMinutes: 30 },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'pod-doctor-cli-')), 'cdk.json');
    writeFileSync(
      file,
      JSON.stringify({ app: 'x', context: { 'pod-doctor': { modes: { 'sandbox-image': 'yolo' } } } }),
    );
    const bad = cli(['config', file]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('pod-doctor.modes.sandbox-image: "yolo" is not allowed');
  });
});

describe('pod-doctor demo', () => {
  it('runs every scenario: classes found, pause images repaired and verified on real containerd', () => {
    const r = cli(['demo', '--all', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const records = r.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            scenario: string;
            class: string;
            outcome: string;
            actions: { id: string; status: string }[];
            findings: { id: string; status: string }[];
            incidents: { class: string; count: number }[];
          },
      );
    const by = Object.fromEntries(records.map((x) => [x.scenario, x]));
    expect(by['pause-image-deleted-al2023']).toMatchObject({
      class: 'sandbox-image',
      outcome: 'repaired and verified',
    });
    expect(by['pause-image-deleted-al2023'].actions).toContainEqual({ id: 'repair-pause-image', status: 'repaired' });
    expect(by['pause-image-deleted-al2023'].findings).toContainEqual({
      id: 'node.sandbox-image.present (before)',
      status: 'fail',
    });
    expect(by['pause-image-deleted-al2023'].findings).toContainEqual({
      id: 'node.sandbox-image.pinned (after)',
      status: 'pass',
    });
    expect(by['pause-image-gc-401']).toMatchObject({ class: 'sandbox-image', outcome: 'repaired and verified' });
    expect(by['insufficient-cidr-blocks'].class).toBe('cidr-fragmentation');
    expect(by['image-tag-typo'].class).toBe('image-not-found');
    expect(by['docker-hub-rate-limit'].class).toBe('rate-limited');
    expect(by['pause-401-missing-ecr-policy'].incidents.map((i) => i.class)).toEqual([
      'sandbox-image',
      'registry-auth',
    ]);
    // A storm of identical lines is one incident, not one per line.
    expect(by['pause-image-deleted-al2023'].incidents).toEqual([
      expect.objectContaining({ class: 'sandbox-image', count: 400 }),
    ]);
  });
});
