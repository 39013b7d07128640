import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { measureHandlers, shippedHandlers } from '../../bench/init.js';
import { environmentSchema, type HandlerName } from '../../lambdas/core/contract/handler-environment.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';
import { LAMBDA_ENV } from '../../local/lambda-env.js';

/**
 * `npm run bench` on a fresh clone (issue 37): its Lambda-init step bundles every handler and imports each
 * bundle in a fresh node process with the bench's environment. A handler that parses a variable at import
 * the bench does not give (the spoke ingest's SPOKE_ACCOUNT did) crashes the bench; here it fails a test.
 */
describe("the bench's Lambda-init step", () => {
  // Inside the project, so the bundles resolve the external AWS SDK from node_modules as on Lambda.
  const cache = join(PROJECT_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true }); // a fresh clone has none yet
  const out = mkdtempSync(join(cache, 'bench-init-test-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('imports every shipped handler bundle with its environment and measures each', { timeout: 300_000 }, () => {
    const handlers = shippedHandlers();
    expect(handlers).toContain('spoke-ingest');
    const figures = measureHandlers(handlers, 1, out);
    expect(figures.map((f) => f.handler)).toEqual(handlers);
    for (const f of figures) {
      expect(f.bundleBytes, f.handler).toBeGreaterThan(0);
      expect(f.medianMs, f.handler).toBeGreaterThan(0);
    }
  });

  it("gives every variable each handler's environment schema requires", () => {
    for (const handler of shippedHandlers()) {
      const parsed = environmentSchema(handler as HandlerName).safeParse(LAMBDA_ENV);
      expect(parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.')), handler).toEqual([]);
    }
  });

  it('a bundle that reads a variable the environment lacks fails the step, naming the bundle', {
    timeout: 120_000,
  }, () => {
    expect(LAMBDA_ENV.SPOKE_ACCOUNT).toMatch(/^\d{12}$/);
    const { SPOKE_ACCOUNT: _, ...without } = LAMBDA_ENV;
    expect(() => measureHandlers(['spoke-ingest'], 1, out, without)).toThrow(/spoke-ingest[\s\S]*SPOKE_ACCOUNT/);
  });
});
