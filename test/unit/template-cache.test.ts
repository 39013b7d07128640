import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedTemplate } from '../../local/template.js';
import { cachedTemplate, shapingPaths, templateKey } from '../../local/template-cache.js';

/** A stand-in synthesis that counts its calls (the real one takes half a minute). */
function counting() {
  const calls: unknown[] = [];
  const synthesize = (config: unknown): ResolvedTemplate => {
    calls.push(config);
    return { Resources: { Fn: { Type: 'AWS::Lambda::Function', Properties: { n: calls.length } } }, raw: {} };
  };
  return { calls, synthesize };
}

function world() {
  const root = mkdtempSync(join(tmpdir(), 'pod-doctor-cache-'));
  const code = join(root, 'code.ts');
  writeFileSync(code, 'export const x = 1;\n');
  return { dir: join(root, 'cache'), code };
}

describe('the demo template cache', () => {
  it('synthesizes once, then serves the same template from disk', () => {
    const { dir, code } = world();
    const s = counting();
    const first = cachedTemplate({ a: 1 }, { dir, shapedBy: [code], synthesize: s.synthesize });
    const second = cachedTemplate({ a: 1 }, { dir, shapedBy: [code], synthesize: s.synthesize });
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(true);
    expect(second.template).toEqual(first.template);
    expect(s.calls).toHaveLength(1);
  });

  it('synthesizes again when the code that shapes it or the configuration changes, keeping one entry per configuration', () => {
    const { dir, code } = world();
    const s = counting();
    const o = { dir, shapedBy: [code], synthesize: s.synthesize };
    cachedTemplate({ a: 1 }, o);
    writeFileSync(code, 'export const x = 2;\n');
    expect(cachedTemplate({ a: 1 }, o).cached).toBe(false);
    expect(cachedTemplate({ a: 2 }, o).cached).toBe(false);
    expect(cachedTemplate({ a: 1 }, o).cached).toBe(true);
    expect(s.calls).toHaveLength(3);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(2);
  });

  it('a torn entry is synthesized again, not served', () => {
    const { dir, code } = world();
    const s = counting();
    const o = { dir, shapedBy: [code], synthesize: s.synthesize };
    cachedTemplate({ a: 1 }, o);
    const [entry] = readdirSync(dir);
    writeFileSync(join(dir, entry), '{"Resources":');
    expect(cachedTemplate({ a: 1 }, o).cached).toBe(false);
    expect(cachedTemplate({ a: 1 }, o).cached).toBe(true);
  });

  it('the key covers the infrastructure code, the handlers, the node scripts and the locked dependencies', () => {
    const paths = shapingPaths();
    for (const p of ['lib', 'lambdas', 'local', 'ssm', 'k8s', 'package-lock.json'])
      expect(
        paths.some((x) => x === p || x.endsWith(`/${p}`)),
        p,
      ).toBe(true);
    expect(templateKey({ a: 1 }, ['ssm'])).not.toBe(templateKey({ a: 2 }, ['ssm']));
    expect(templateKey({ a: 1 }, ['ssm'])).not.toBe(templateKey({ a: 1 }, ['k8s']));
  });
});
