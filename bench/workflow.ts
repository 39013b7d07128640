/**
 * State transitions per typical incident and a cost estimate per 1,000 incidents, from the
 * synthesized state machine run locally (the same run the workflow tests do).
 * Target (issue #6): under 50 transitions for an auto-repaired pause image.
 */
import { healthyAccount } from '../local/account-snapshot.js';
import { runWorkflow, synthesizedDefinition } from '../local/local-workflow.js';
import { simulatedPauseNode } from '../local/node-adapters.js';
import { incident } from '../test/workflow/support.js';

// Public prices (us-east-1, Nov 2026): Standard workflows $0.025 per 1,000 transitions; Lambda arm64
// $0.20 per 1M requests and $0.0000133334 per GB-second; SSM Run Command and SNS e-mail (first 1,000) free.
const PER_TRANSITION = 0.025 / 1000;
const LAMBDA_REQUEST = 0.2 / 1_000_000;
const LAMBDA_GB_SECOND = 0.0000133334;
const ASSUMED_LAMBDA_MS = 300;

export async function benchWorkflow(): Promise<boolean> {
  const definition = synthesizedDefinition();
  const paths: [string, Parameters<typeof runWorkflow>[1]][] = [
    ['auto-repaired pause image', { account: healthyAccount(), node: simulatedPauseNode(), definition }],
    [
      'approved repair',
      {
        account: healthyAccount(),
        node: simulatedPauseNode(),
        definition,
        modes: { 'sandbox-image': 'approve' },
        approval: 'approve',
      },
    ],
    [
      'observe: diagnose and recommend',
      { account: healthyAccount(), node: simulatedPauseNode(), definition, modes: { 'sandbox-image': 'observe' } },
    ],
  ];
  let ok = true;
  for (const [name, options] of paths) {
    const r = await runWorkflow(incident(), options);
    const lambdas = r.states.filter((s) =>
      /^(Open incident|Resolve node|Check |Decide|Request approval|Check repair|Summarize|Record failure)/.test(s),
    ).length;
    const cost =
      1000 *
      (r.transitions * PER_TRANSITION +
        lambdas * (LAMBDA_REQUEST + (ASSUMED_LAMBDA_MS / 1000) * 0.5 * LAMBDA_GB_SECOND));
    console.log(
      `${name.padEnd(34)} ${String(r.transitions).padStart(3)} transitions, ${lambdas} Lambda invocations: ≈ $${cost.toFixed(2)} per 1,000 incidents`,
    );
    if (name === 'auto-repaired pause image') {
      console.log(`auto-repaired pause image ${r.transitions < 50 ? 'meets' : 'MISSES'} the < 50 transitions target`);
      ok &&= r.transitions < 50;
    }
  }
  console.log(
    `(cost: Step Functions transitions + Lambda at an assumed ${ASSUMED_LAMBDA_MS} ms × 512 MB per invocation; SSM Run Command and e-mail are free)`,
  );
  return ok;
}
