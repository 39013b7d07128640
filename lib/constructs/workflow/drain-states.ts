import { Choice, Condition, type IChainable, TaskInput } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { type FollowUpStatesProps, followUpApproval } from './follow-up-states.js';
import { followUpGate, invokeNarrowed } from './tasks.js';

/** Props of {@link drainStates}. */
export type DrainStatesProps = FollowUpStatesProps;

/** The verified runtime restart failed and Decide planned the drain for that case. */
const DRAIN_ASKED = Condition.and(
  Condition.booleanEquals('$.verification.verified', false),
  Condition.isPresent('$.plan.drain.disposition'),
  Condition.stringEquals('$.plan.drain.disposition', 'approve'),
);

/**
 * PID exhaustion after a failed runtime restart: Request drain approval (what the restart left,
 * who replaces the node) → probe again → "Drain: gate" (kill switch, cooldown, breaker, hourly cap,
 * the node still failing) → Drain node (cordon, evictions honouring PodDisruptionBudgets, wait
 * for the pods to leave; a node someone else cordoned is left to them) → summarize. pod-doctor
 * never terminates the instance. Returns the Choice to enter after the restart's verification.
 */
export function drainStates(scope: Construct, p: DrainStatesProps): IChainable {
  const drain = invokeNarrowed(
    scope,
    'Drain node',
    p.kubernetes,
    TaskInput.fromObject({ action: 'drain-node', 'cluster.$': '$.cluster', 'node.$': '$.node', skipIfCordoned: true }),
    ['drain'],
    '$.drainResult',
  );
  // No cluster access by now (access entry removed, API unreachable): recorded, the drain recommended.
  drain.addCatch(p.summarize, { resultPath: '$.drainError' });
  drain.next(p.summarize);
  const gate = followUpGate(scope, 'Drain', p.actGate, {
    action: 'drain-node',
    recheckPath: '$.drainRecheck',
    resultPath: '$.drainGate',
    blockedPath: '$.drainBlocked',
    blocked: p.summarize,
  });
  p.onError(gate).next(drain);
  const request = followUpApproval(scope, p, {
    verb: 'Drain',
    noun: 'drain',
    planPath: '$.plan.drain',
    reasons: 'States.Array($.verification.reason, $.plan.drain.replacement.text)',
    resultPrefix: '$.drain',
    // A node SSM cannot reach is still drained through the API (the gate knows).
    gate,
  });
  return new Choice(scope, 'Drain after failed restart?').when(DRAIN_ASKED, request).otherwise(p.summarize);
}
