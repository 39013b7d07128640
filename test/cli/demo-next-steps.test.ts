import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioResult } from '../../demo/run.js';
import { SCENARIOS } from '../../demo/scenarios.js';

/** The summary's NEXT STEP line and its RECOMMENDED list. */
function nextSteps(message: string): { next: string; recommended: string[] } {
  const lines = message.split('\n');
  const next = lines.find((l) => l.startsWith('NEXT STEP'))?.replace(/^NEXT STEP\s+/, '') ?? '';
  const at = lines.indexOf('RECOMMENDED');
  const recommended = [];
  for (let i = at + 1; at >= 0 && i < lines.length && lines[i].startsWith('  - '); i++)
    recommended.push(lines[i].slice(4));
  return { next, recommended };
}

/**
 * Outcomes and next steps never contradict: what a run did and verified is not recommended again,
 * and a verified change that still needs a human says so in its outcome (and pages as such).
 */
describe('demo: outcomes and next steps agree', () => {
  const names = ['ipamd-unreachable', 'cni-policy-missing', 'docker-hub-rate-limit'];
  let results: Record<string, ScenarioResult>;

  beforeAll(async () => {
    const runs = await runScenarios(
      SCENARIOS.filter((s) => names.includes(s.name)),
      { simulatedNodes: true },
    );
    results = Object.fromEntries(runs.map((r) => [r.scenario, r]));
  }, 300_000);

  it("ipamd-unreachable: aws-node restarted and verified, so restarting it is nobody's next step", () => {
    const r = results['ipamd-unreachable'];
    expect(r.outcome).toBe('restart-aws-node verified; collect-logs done');
    const { next, recommended } = nextSteps(r.summary.message);
    expect(next).not.toMatch(/restart (the )?aws-node/);
    expect(recommended.filter((x) => /^restart aws-node|^k8s\.aws-node:/.test(x))).toEqual([]);
    // What is still open stays: the add-on's own health.
    expect(next).toMatch(/^eks\.addon-versions: /);
  });

  it('cni-policy-missing: neither the attach nor the restart is recommended after both verified', () => {
    const { recommended } = nextSteps(results['cni-policy-missing'].summary.message);
    expect(
      recommended.filter((x) => /^attach AmazonEKS_CNI_Policy|^restart aws-node|^iam\.cni-policy:/.test(x)),
    ).toEqual([]);
  });

  it('docker-hub-rate-limit: the cache rule is verified, the node role permission is left by hand, and the page says a human is needed', () => {
    const r = results['docker-hub-rate-limit'];
    expect(r.outcome).toMatch(/^remedied and verified: create an ECR pull-through cache rule .*; left by hand: /);
    const { next, recommended } = nextSteps(r.summary.message);
    expect(next).toMatch(/^allow the node role\(s\) .* to pull through the cache/);
    expect(recommended).not.toContain('create an ECR pull-through cache rule for Docker Hub and point images at it');
    expect(r.notices.at(-1)?.notice.kind).toBe('needs-human');
  });
});
