import '../support/deployed-env.js';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { approvalRequestSchema } from '../../lambdas/handlers/approval-request.js';
import { decideEventSchema } from '../../lambdas/handlers/decide.js';
import { summarizeEventSchema } from '../../lambdas/handlers/summarize.js';
import { verifyEventSchema } from '../../lambdas/handlers/verify.js';
import { healthyAccount } from '../../local/account-snapshot.js';
import { clusterOnNode, LocalCluster } from '../../local/local-cluster.js';
import { runWorkflow, synthesizedDefinition, warmUpRuntime } from '../../local/local-workflow.js';
import { simulatedPauseNode } from '../../local/node-adapters.js';
import { incident, recordedPods } from './support.js';

/**
 * The event schemas of the Lambda composition roots (lambdas/handlers) against the states the
 * synthesized state machine really hands those functions: every input Decide, Check repair,
 * Summarize / Record failure and Door: ask receive in local runs must pass its schema (the door's
 * own input is parsed with its schema by the local runtime on every call).
 */
const { seen, capture } = vi.hoisted(() => {
  const seen: Record<string, unknown[]> = {};
  /** Records the input, then runs the real function. */
  const capture =
    <I, D, R>(name: string, f: (i: I, d: D) => R) =>
    (i: I, d: D): R => {
      seen[name] ??= [];
      seen[name].push(structuredClone(i));
      return f(i, d);
    };
  return { seen, capture };
});

vi.mock('../../lambdas/aws/workflow/decide.js', async (load) => {
  const m = await load<typeof import('../../lambdas/aws/workflow/decide.js')>();
  return { ...m, decideIncident: capture('decide', m.decideIncident) };
});
vi.mock('../../lambdas/aws/workflow/summarize.js', async (load) => {
  const m = await load<typeof import('../../lambdas/aws/workflow/summarize.js')>();
  return { ...m, summarizeIncident: capture('summarize', m.summarizeIncident) };
});
vi.mock('../../lambdas/aws/workflow/verify.js', async (load) => {
  const m = await load<typeof import('../../lambdas/aws/workflow/verify.js')>();
  return { ...m, verifyRepair: capture('verify', m.verifyRepair) };
});
vi.mock('../../lambdas/aws/workflow/approval.js', async (load) => {
  const m = await load<typeof import('../../lambdas/aws/workflow/approval.js')>();
  return { ...m, requestApproval: capture('approval', m.requestApproval) };
});

let definition: Record<string, unknown>;
beforeAll(async () => {
  definition = synthesizedDefinition();
  await warmUpRuntime();
});

const SCHEMAS = {
  decide: decideEventSchema,
  summarize: summarizeEventSchema,
  verify: verifyEventSchema,
  approval: approvalRequestSchema,
} as const;

describe('handler event schemas accept what the state machine sends', () => {
  it('auto repair, approval, a failed step (Record failure), an approved eviction', { timeout: 60_000 }, async () => {
    const base = { account: healthyAccount(), definition };
    const runs = [
      await runWorkflow(incident(), { ...base, node: simulatedPauseNode() }),
      await runWorkflow(incident(), {
        ...base,
        node: simulatedPauseNode(),
        modes: { 'sandbox-image': 'approve' },
        approval: 'approve',
      }),
      await runWorkflow(incident(), {
        ...base,
        node: simulatedPauseNode(),
        taskFaults: { Decide: { error: 'TypeError', message: 'boom: unexpected plan' } },
      }),
    ];
    // The pods stay stuck after the repair: the eviction is asked for, approved and run.
    const cluster = await LocalCluster.start(clusterOnNode(), {
      behaviour: { recreateEvicted: { readyAfterMs: 100 } },
    });
    try {
      // The incident names the stuck pods (verification watches only the pods named at opening).
      const evicted = await runWorkflow(incident({ pods: recordedPods() }), {
        ...base,
        node: simulatedPauseNode(),
        kubernetes: cluster.kubernetes,
        evictApproval: 'approve',
      });
      expect(evicted.states).toEqual(expect.arrayContaining(['Evict: request', 'Door: ask']));
      runs.push(evicted);
    } finally {
      await cluster.stop();
    }
    expect(runs.map((r) => r.status)).toContain('SUCCEEDED');
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      expect(seen[name]?.length ?? 0, `${name} was called`).toBeGreaterThan(0);
      for (const input of seen[name] ?? []) {
        const r = schema.safeParse(input);
        expect(r.success, `${name}: ${r.error?.message}`).toBe(true);
      }
    }
  });
});
