import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.doUnmock('../../lambdas/core/detect/anchor-automaton.js');
  vi.resetModules();
});

describe('the pre-filter at import', () => {
  it('builds its anchor automaton at the first text, once, not when the classifier is imported', async () => {
    vi.resetModules();
    let built = 0;
    vi.doMock('../../lambdas/core/detect/anchor-automaton.js', async (importOriginal) => {
      const original = await importOriginal<typeof import('../../lambdas/core/detect/anchor-automaton.js')>();
      class Counted extends original.AnchorGroupAutomaton {
        constructor(groups: readonly (readonly string[])[]) {
          super(groups);
          built++;
        }
      }
      return { ...original, AnchorGroupAutomaton: Counted };
    });
    const { classify } = await import('../../lambdas/core/detect/classifier.js');
    const { cannotMatch } = await import('../../lambdas/core/detect/prefilter.js');
    expect(built).toBe(0);
    expect(cannotMatch('I1130 10:00:01.000004    3412 kubelet_pods.go:1075] "Clean up pod workers"')).toBe(true);
    expect(built).toBe(1);
    expect(classify('write /var/lib/containerd/x: no space left on device').class).toBe('disk-full');
    expect(built).toBe(1);
  });
});
