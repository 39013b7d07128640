import * as z from 'zod/mini';
import { probeFindings } from '../../core/contract/probe.js';
import { failingOnNode, healthyNode } from '../../core/policy/node-signs.js';
import { executionStateSchema, type PodVerdict, type Verification } from '../../core/workflow/execution-state.js';

export type { Verification };

/**
 * What "Check repair" reads of the execution state (the whole state is sent; the rest is dropped):
 * the incident, the door's verification probe and the time of its last change, the pods watched.
 */
export const verifyEventSchema = z.pick(executionStateSchema, {
  incidentKey: true,
  class: true,
  door: true,
  podSignal: true,
});

/** What "Check repair" reads: the incident, the door's verification probe and last change, the pods watched. */
export type VerifyInput = z.output<typeof verifyEventSchema>;

const REPLACE = 'cordon and drain the node, then terminate it so the node group replaces it';

/**
 * Verify, on evidence the node owns: the probe after the repair shows the class's failing condition
 * gone (pause image present and pinned; PID/thread use under the limit), and, when the stuck pods were
 * watched, that they started. Log lines are not evidence here: whoever can write a line could write one
 * after the repair (lines that keep coming are evaluated again by the ingest path instead).
 */
export function verifyRepair(input: VerifyInput): Verification {
  const probe = input.door?.done?.verifyProbe?.command;
  const findings = probe?.findings ?? probeFindings({ status: probe?.status ?? 'not run' });
  const bad = failingOnNode(input.class, findings);
  if (findings.length === 0 || findings.some((f) => f.id === 'node.probe')) {
    return {
      verified: false,
      reason: `verification probe did not run (${probe?.status ?? 'no result'})`,
      nextStep: `check the node by hand; if pods still cannot start, ${REPLACE}`,
      podsStillStuck: false,
    };
  }
  if (bad.length)
    return {
      verified: false,
      reason: `still failing after the repair: ${bad.map((f) => `${f.id} ${f.status}`).join(', ')}`,
      nextStep: REPLACE,
      podsStillStuck: false,
    };
  const podVerdict = input.podSignal?.verdict;
  if (podVerdict) return podVerification(podVerdict, healthyNode(input.class));
  return {
    verified: true,
    reason: `${healthyNode(input.class)} (the node's own probe after the repair)`,
    nextStep: 'none: pod-doctor keeps watching for a recurrence',
    podsStillStuck: false,
  };
}

/** The verdict when the stuck pods were watched: they started, or they did not within the window. */
function podVerification(v: PodVerdict, healthy: string): Verification {
  const started = v.started.map((p) => `${p.pod} after ${p.afterSeconds} s`).join(', ');
  if (v.verified) {
    return {
      verified: true,
      reason: `${healthy}; the stuck pods started: ${started}`,
      nextStep: 'none: pod-doctor keeps watching for a recurrence',
      podsStillStuck: false,
    };
  }
  const stuck = v.stillStuck.length ? `still not running after ${v.windowSeconds} s: ${v.stillStuck.join(', ')}` : '';
  const gone = v.gone.length ? `deleted or replaced meanwhile: ${v.gone.join(', ')}` : '';
  return {
    verified: false,
    reason: [stuck, gone, started ? `started: ${started}` : ''].filter(Boolean).join('; ') || 'no watched pod started',
    nextStep: v.stillStuck.length
      ? `the node is healthy: delete the stuck pods so their controllers re-create them (kubectl delete pod); if the new pods fail too, ${REPLACE}`
      : 'check that the re-created pods run',
    podsStillStuck: v.stillStuck.length > 0,
  };
}
