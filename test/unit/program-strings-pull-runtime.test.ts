import { describe, expect, it } from 'vitest';
import { classify } from '../../lambdas/core/detect/classifier.js';
import { buildFilterPattern } from '../../lambdas/core/detect/filter-pattern.js';
import { SIGNATURES } from '../../lambdas/core/detect/signatures.js';
import { compileFilterPattern } from '../support/cloudwatch-filter.js';
import { countByClass, programStrings } from '../support/program-strings.js';

/**
 * The strings containerd (CRI pull and sandbox paths, the docker resolver and authorizer, content
 * fetch, the shim), kubelet (image manager, CRI client, sandbox creation, credential-provider plugin,
 * eviction), ecr-credential-provider, runc, Go's runtime, the distribution registry's error codes and
 * Bottlerocket's host-ctr print on the image-pull and runtime failure paths, each rendered as a node
 * prints it (test/fixtures/program/pull-runtime.jsonl, source file and commit on every row).
 */
const rows = programStrings('pull-runtime');
const failures = rows.filter((r) => r.class !== 'unknown');
const passes = compileFilterPattern(buildFilterPattern());
const label = (r: (typeof rows)[number]) => `${r.class} ← ${r.program}: ${r.line.slice(0, 110)}`;

describe('program strings of the image-pull and runtime paths', () => {
  it('cover every pull and runtime failure class, and healthy strings that share their words', () => {
    const counts = countByClass(rows);
    for (const c of [
      'sandbox-image',
      'registry-auth',
      'registry-unreachable',
      'registry-tls',
      'image-not-found',
      'image-platform',
      'rate-limited',
      'disk-full',
      'pid-exhaustion',
      'runtime-failure',
      'unknown',
    ])
      expect(counts[c] ?? 0, c).toBeGreaterThanOrEqual(5);
  });

  it.each(rows.map((r) => [label(r), r] as const))('classifies %s', (_, r) => {
    expect(classify(r.line).class).toBe(r.class);
  });

  it('lets every failure string through the subscription filter, as written and in a Container Insights envelope', () => {
    const blocked = failures.filter(
      (r) =>
        !passes(r.line) ||
        !passes(JSON.stringify({ hostname: 'ip-10-0-14-201', systemd_unit: `${r.program}.service`, message: r.line })),
    );
    expect(blocked.map(label)).toEqual([]);
  });

  it('lets each failure string through on a term of the signature that classifies it', () => {
    const own = new Map(SIGNATURES.map((s) => [s.id, compileFilterPattern(buildFilterPattern(s.filter))]));
    const wrong = failures.filter((r) => {
      const id = classify(r.line).signature;
      return id === null || !own.get(id)?.(r.line);
    });
    expect(wrong.map(label)).toEqual([]);
  });
});
