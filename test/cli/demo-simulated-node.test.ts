import { beforeAll, describe, expect, it } from 'vitest';
import { runScenarios, type ScenarioResult } from '../../demo/run.js';
import { ECR_PAUSE } from '../../demo/scenario-kit.js';
import { SCENARIOS } from '../../demo/scenarios.js';
import { DOCUMENTS, type NodeCommandAnswer } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';

/**
 * A fresh clone before `npm test` installed containerd: the pause-image scenarios run on simulated
 * nodes. Each simulated node is the scenario's own (AL2023's baked image, AL2's ECR pause image
 * pulled with the node role's token), so the door's re-check of the failing image passes and the
 * scenarios end as they do on real containerd.
 */
describe('demo without containerd', () => {
  const local = SCENARIOS.filter((s) => s.node.kind === 'local');
  let results: Record<string, ScenarioResult>;

  beforeAll(async () => {
    const runs = await runScenarios(local, { simulatedNodes: true });
    results = Object.fromEntries(runs.map((r) => [r.scenario, r]));
  }, 300_000);

  it('runs every pause-image scenario on a simulated node of its own variant and meets its expectation', () => {
    expect(local.map((s) => s.name)).toEqual(
      expect.arrayContaining(['pause-image-gc-401', 'pause-401-missing-ecr-policy', 'pause-image-events-only']),
    );
    for (const s of local) {
      const r = results[s.name];
      expect(r.node, s.name).toBe('simulated');
      expect(r.outcome, s.name).toBe(s.expect.outcome);
      expect(
        r.actions.map((a) => a.id),
        s.name,
      ).toEqual([
        ...(s.expect.remedy ? [s.expect.remedy].flat() : []),
        ...(s.expect.nodeAction ? [s.expect.nodeAction].flat() : []),
      ]);
    }
  });

  it("the AL2 node's repair pulls the ECR pause image, and only once the node role may get a token again", () => {
    const r = results['pause-401-missing-ecr-policy'];
    expect(r.actions).toEqual([
      { id: 'attach-managed-policy', status: 'verified' },
      { id: 'repair-pause-image', status: 'Success' },
    ]);
    expect(r.summary.message).toContain('602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.5');
    expect(r.summary.message).not.toContain('localhost/kubernetes/pause');
  });

  it('the events-only scenario: the stuck pods start once the simulated node holds its image again', () => {
    const r = results['pause-image-events-only'];
    expect(r.outcome).toBe('repaired and verified');
    // The write-back goes on the node alone: no pod is stuck when the run reports.
    expect(r.clusterEvents.some((e) => e.regarding.startsWith('Pod '))).toBe(false);
  });

  it('a simulated AL2 node reports its ECR pause image and repairs it only with a registry token', async () => {
    let token = false;
    const node = simulatedPauseNode({ sandboxImage: ECR_PAUSE, ecrToken: () => token });
    const run = async (doc: string) => (await node.run(doc, {}, 1)) as NodeCommandAnswer;
    const probe = JSON.parse((await run(DOCUMENTS.probeNode)).stdout) as { node: { sandboxImage: string } };
    expect(probe.node.sandboxImage).toBe(ECR_PAUSE);
    const refused = await run(DOCUMENTS.repairPauseImage);
    expect(refused.status).toBe('Failed');
    expect(JSON.parse(refused.stdout)).toMatchObject({ status: 'failed', method: 'ecr-pull', image: ECR_PAUSE });
    expect(node.sandboxImagePresent()).toBe(false);
    token = true;
    expect(JSON.parse((await run(DOCUMENTS.repairPauseImage)).stdout)).toMatchObject({
      status: 'repaired',
      method: 'ecr-pull',
    });
    expect(node.sandboxImagePresent()).toBe(true);
  });
});
