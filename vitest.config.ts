import { defineConfig } from 'vitest/config';

/** Test tiers: pure domain → handlers → infra → template (cfn-lint) → workflow → node (real containerd). */
export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    projects: ['unit', 'handlers', 'infra', 'template', 'workflow', 'node', 'cli'].map((tier) => ({
      extends: true,
      test: {
        name: tier,
        include: [`test/${tier}/**/*.test.ts`],
        testTimeout: ['node', 'infra', 'template', 'cli'].includes(tier) ? 120_000 : 10_000,
        hookTimeout: 300_000,
        ...(tier === 'node' ? { globalSetup: ['test/node/global-setup.ts'], fileParallelism: false } : {}),
      },
    })),
  },
});
