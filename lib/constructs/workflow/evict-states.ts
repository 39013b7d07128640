import { Choice, Condition, type IChainable, Pass, TaskInput } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ActStatesProps } from './act-states.js';
import { type FollowUpStatesProps, followUpApproval } from './follow-up-states.js';
import { followUpGate, invokeNarrowed } from './tasks.js';

/** Props of {@link evictStates}: a follow-up action's, with where the stuck pods are and the watch window. */
export type EvictStatesProps = FollowUpStatesProps &
  Pick<ActStatesProps, 'stuckPodsPath'> & {
    /** How long the re-created pods may take to run. */
    readonly watchSeconds: number;
  };

/** The repair's verification found the node healthy and the watched pods still stuck, and Decide planned `disposition`. */
const evictionPlanned = (disposition: string) =>
  Condition.and(
    Condition.isPresent('$.verification.podsStillStuck'),
    Condition.booleanEquals('$.verification.podsStillStuck', true),
    Condition.isPresent('$.plan.evict.disposition'),
    Condition.stringEquals('$.plan.evict.disposition', disposition),
  );

/**
 * After the pause repair, when the node is healthy but the stuck pods stay stuck: [Request eviction
 * approval → Evict recheck] → "Evict: gate" (kill switch, cooldown, breaker, hourly cap, the node
 * healthy) → Evict stuck pods (those a controller re-creates, from the API's listing of the node's
 * pods; PodDisruptionBudgets honoured) → Watch recreated pods → summarize. A dry run asks the API
 * server what it would evict. Every failure goes to summarize, which notifies. Returns the Choice to
 * enter after "Check repair".
 */
export function evictStates(scope: Construct, p: EvictStatesProps): IChainable {
  const evict = evictTask(scope, p, 'Evict stuck pods', false);
  const watch = invokeNarrowed(
    scope,
    'Watch recreated pods',
    p.kubernetes,
    TaskInput.fromObject({
      action: 'verify-replacements',
      'cluster.$': '$.cluster',
      'evicted.$': '$.evictResult.evictions.evictedPods',
      'since.$': '$.evictResult.evictions.startedAt',
      windowSeconds: p.watchSeconds,
    }),
    ['verdict'],
    '$.replacements',
  );
  watch.addCatch(p.summarize, { resultPath: '$.replacementsError' });
  watch.next(p.summarize);
  evict.next(
    new Choice(scope, 'Pods evicted?')
      .when(Condition.isPresent('$.evictResult.evictions.evictedPods[0]'), watch)
      .otherwise(p.summarize),
  );
  const gate = gateState(scope, p).next(evict);
  return new Choice(scope, 'Evict stuck pods?')
    .when(
      evictionPlanned('auto'),
      new Pass(scope, 'Evict: verify probe', { inputPath: '$.verifyProbe', resultPath: '$.evictRecheck' }).next(gate),
    )
    .when(evictionPlanned('approve'), approval(scope, p, gate))
    .when(evictionPlanned('dry-run'), evictTask(scope, p, 'Evict stuck pods: dry run', true).next(p.summarize))
    .otherwise(p.summarize);
}

/** The eviction through the Kubernetes function; no answer from the cluster: recorded and notified. */
function evictTask(scope: Construct, p: EvictStatesProps, id: string, dryRun: boolean) {
  const task = invokeNarrowed(
    scope,
    id,
    p.kubernetes,
    TaskInput.fromObject({
      action: 'evict-stuck-pods',
      'cluster.$': '$.cluster',
      'node.$': '$.node',
      'pods.$': p.stuckPodsPath,
      dryRun,
    }),
    ['evictions'],
    '$.evictResult',
  );
  task.addCatch(p.summarize, { resultPath: '$.evictError' });
  return task;
}

/** "Evict: gate": the gate every action passes right before it runs; a refusal ends recorded and notified. */
function gateState(scope: Construct, p: EvictStatesProps) {
  const gate = followUpGate(scope, 'Evict', p.actGate, {
    action: 'evict-stuck-pods',
    recheckPath: '$.evictRecheck',
    resultPath: '$.evictGate',
    blockedPath: '$.evictBlocked',
    blocked: p.summarize,
  });
  return p.onError(gate);
}

/** Request eviction approval (what stays stuck, why) → probe the node again → the gate. */
function approval(scope: Construct, p: EvictStatesProps, gate: IChainable): IChainable {
  return followUpApproval(scope, p, {
    verb: 'Evict',
    noun: 'eviction',
    planPath: '$.plan.evict',
    reasons: 'States.Array($.verification.reason)',
    resultPrefix: '$.evict',
    // The gate refuses when it cannot tell the node is healthy.
    gate,
  });
}
