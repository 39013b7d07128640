import { defineConfig } from 'vitest/config';

/**
 * Test tiers: pure domain → handlers → infra → template (cfn-lint) → workflow → node (real
 * containerd) → cli → package (npm pack, installed into an empty CDK app).
 */
export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    projects: ['unit', 'handlers', 'infra', 'template', 'workflow', 'node', 'cli', 'package'].map((tier) => ({
      extends: true,
      test: {
        name: tier,
        include: [`test/${tier}/**/*.test.ts`],
        testTimeout: ['node', 'infra', 'template', 'cli', 'package'].includes(tier) ? 120_000 : 10_000,
        // package: npm pack builds the package, then npm installs it.
        hookTimeout: tier === 'package' ? 600_000 : 300_000,
        ...(tier === 'node' ? { globalSetup: ['test/node/global-setup.ts'], fileParallelism: false } : {}),
      },
    })),
  },
});
