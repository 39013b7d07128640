import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Choice,
  Condition,
  type IChainable,
  type State,
  TaskInput,
  type TaskStateBase,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ActionKind } from '../../../lambdas/core/door/action-request.js';
import { at } from '../../../lambdas/core/workflow/execution-state.js';
import { type DoorStates, probeRequest } from './door-states.js';
import { anyRoute, routedTask, type VpcRoute } from './routes.js';
import { invokeNarrowed } from './tasks.js';

/** Props of {@link actionStates}. */
export interface ActionStatesProps {
  readonly door: DoorStates;
  readonly verify: IFunction;
  /** Kubernetes API of the cluster (watch the stuck pods start, watch the re-created pods); absent: the fixed window. */
  readonly kubernetes?: IFunction;
  /** The Kubernetes function's copies in the VPCs of private clusters. @default - none */
  readonly kubernetesInVpcs?: readonly VpcRoute[];
  readonly verificationWindow: Duration;
  /** The stack can run remedies (a remediation scope or cluster access): the remedy branch exists. */
  readonly remedies: boolean;
  readonly summarize: IChainable;
  /** Catches every error of a task into the failure path. */
  readonly onError: <T extends TaskStateBase>(s: T) => T;
}

/** The Kubernetes function runs at most 15 minutes; the watch ends before that. */
const MAX_WATCH_SECONDS = 13 * 60;

/** Node actions whose success is verified (probe again, watch the pods) rather than just reported. */
const VERIFIED: readonly ActionKind[] = ['repair-pause-image', 'restart-runtime'];

const present = (...path: Parameters<typeof at>) => Condition.isPresent(at(...path));
const absent = (...path: Parameters<typeof at>) => Condition.not(Condition.isPresent(at(...path)));
const lastIs = (field: 'kind' | 'slot', value: string) => Condition.stringEquals(at('door', 'last', field), value);

/**
 * The plan's actions, each a request through the door (door-states.ts): the remedy and its
 * follow-up, then the node action and its follow-up, the verification of a repair (watch the pods
 * start or wait, then probe the node through the door), and after it the eviction of pods that stay
 * stuck or the drain of a node a restart did not fix. Returns the state Decide continues with.
 */
export function actionStates(scope: Construct, p: ActionStatesProps): State {
  const { door } = p;
  const act = door.call('Act: request', { slot: 'act', returnTo: 'act', request: at('plan', 'requests', 'act') });
  const remedy = p.remedies
    ? door.call('Remedy: request', { slot: 'remedy', returnTo: 'remedy', request: at('plan', 'requests', 'remedy') })
    : undefined;
  if (remedy) door.continueWith('remedy', remedyDone(scope, p, act));
  door.continueWith('act', actDone(scope, p));
  const next = new Choice(scope, 'Act, ask or report?');
  if (remedy) next.when(present('plan', 'requests', 'remedy'), remedy);
  return next.when(present('plan', 'requests', 'act'), act).otherwise(p.summarize);
}

/** "Remedy done?": a verified (or no longer needed) remedy continues with its follow-up, then the node action. */
function remedyDone(scope: Construct, p: ActionStatesProps, act: IChainable): State {
  const fine = Condition.or(
    Condition.stringEquals(at('door', 'last', 'record', 'status'), 'verified'),
    Condition.stringEquals(at('door', 'last', 'record', 'status'), 'not-needed'),
  );
  const followUp = p.door.call('Remedy follow-up: request', {
    slot: 'remedyFollowUp',
    returnTo: 'remedy',
    request: at('plan', 'requests', 'remedyFollowUp'),
  });
  return new Choice(scope, 'Remedy done?')
    .when(
      Condition.and(
        present('door', 'last', 'record', 'status'),
        fine,
        present('plan', 'requests', 'remedyFollowUp'),
        // Not(IsPresent), never IsPresent: false: the local runtime (aws-local-stepfunctions 3.0) reads
        // `IsPresent: false` as always false.
        absent('door', 'done', 'remedyFollowUp'),
      ),
      followUp,
    )
    .when(Condition.and(present('door', 'last', 'record', 'status'), fine, present('plan', 'requests', 'act')), act)
    .otherwise(p.summarize);
}

/** "Act done?": a repair is verified; a first action that succeeded continues with its follow-up. */
function actDone(scope: Construct, p: ActionStatesProps): State {
  const success = Condition.and(
    present('door', 'last', 'command', 'status'),
    Condition.stringEquals(at('door', 'last', 'command', 'status'), 'Success'),
  );
  const followUp = p.door.call('Follow-up: request', {
    slot: 'followUp',
    returnTo: 'act',
    request: at('plan', 'requests', 'followUp'),
  });
  return new Choice(scope, 'Act done?')
    .when(Condition.and(success, Condition.or(...VERIFIED.map((k) => lastIs('kind', k)))), verifyStates(scope, p))
    .when(Condition.and(success, lastIs('slot', 'act'), present('plan', 'requests', 'followUp')), followUp)
    .otherwise(p.summarize);
}

/**
 * [Watch the stuck pods start | wait the window] → probe the node again through the door → Check
 * repair → [the eviction of pods that stay stuck on the healthy node | the drain of a node a restart
 * did not fix] → summarize.
 */
function verifyStates(scope: Construct, p: ActionStatesProps): State {
  const probe = p.door.call('Verify probe: request', {
    slot: 'verifyProbe',
    returnTo: 'verify',
    request: probeRequest('probe the node again to verify the repair (read-only)'),
  });
  const check = p.onError(
    invokeNarrowed(
      scope,
      'Check repair',
      p.verify,
      TaskInput.fromJsonPathAt('$'),
      ['verified', 'reason', 'nextStep', 'podsStillStuck'],
      at('verification'),
    ),
  );
  p.door.continueWith('verify', check);
  check.next(afterCheck(scope, p));
  const window = new Wait(scope, 'Wait verification window', { time: WaitTime.duration(p.verificationWindow) });
  window.next(probe);
  const fn = p.kubernetes;
  if (!anyRoute(fn, p.kubernetesInVpcs)) return window;
  const watch = routedTask(scope, 'Watch pods start', fn, p.kubernetesInVpcs ?? [], (id, f) =>
    invokeNarrowed(
      scope,
      id,
      f,
      TaskInput.fromObject({
        action: 'verify',
        'cluster.$': at('cluster'),
        'node.$': at('node'),
        'pods.$': at('diagnosis', 'kubernetes', 'stuckPods'),
        // Only the pods the incident named when it opened are watched: another pod stuck on the node (a
        // tenant's that can never start) is not this repair's evidence.
        'named.$': at('pods'),
        windowSeconds: Math.min(p.verificationWindow.toSeconds(), MAX_WATCH_SECONDS),
      }),
      ['verdict'],
      at('podSignal'),
    ),
  );
  for (const t of watch.tasks) {
    t.addCatch(window, { resultPath: at('podSignalError') });
    t.next(probe);
  }
  return new Choice(scope, 'Pods to watch?')
    .when(Condition.isPresent(`${at('diagnosis', 'kubernetes', 'stuckPods')}[0]`), watch.entry)
    .otherwise(window);
}

/**
 * "After the check?": a runtime restart that did not fix the node asks for the drain; a repaired
 * node whose pods stay stuck evicts them (with cluster access, as Decide planned); else summarize.
 */
function afterCheck(scope: Construct, p: ActionStatesProps): IChainable {
  const fn = p.kubernetes;
  // Without cluster access there is no drain or eviction to choose: a Choice without rules is not valid ASL.
  if (!anyRoute(fn, p.kubernetesInVpcs)) return p.summarize;
  const choice = new Choice(scope, 'After the check?');
  const drain = p.door.call('Drain: request', {
    slot: 'drain',
    returnTo: 'summarize',
    request: at('plan', 'requests', 'drain'),
  });
  const evict = p.door.call('Evict: request', {
    slot: 'evict',
    returnTo: 'evict',
    request: at('plan', 'requests', 'evict'),
  });
  p.door.continueWith('evict', evictDone(scope, p, fn));
  choice
    .when(
      Condition.and(
        Condition.booleanEquals(at('verification', 'verified'), false),
        Condition.stringEquals(at('door', 'lastAction', 'kind'), 'restart-runtime'),
        present('plan', 'requests', 'drain'),
      ),
      drain,
    )
    .when(
      Condition.and(
        Condition.booleanEquals(at('verification', 'podsStillStuck'), true),
        present('plan', 'requests', 'evict'),
      ),
      evict,
    );
  return choice.otherwise(p.summarize);
}

/** "Pods evicted?": watch the controllers re-create the evicted pods, then summarize. */
function evictDone(scope: Construct, p: ActionStatesProps, fn: IFunction | undefined): State {
  const watch = routedTask(scope, 'Watch recreated pods', fn, p.kubernetesInVpcs ?? [], (id, f) =>
    invokeNarrowed(
      scope,
      id,
      f,
      TaskInput.fromObject({
        action: 'verify-replacements',
        'cluster.$': at('cluster'),
        'evicted.$': at('door', 'last', 'evictions', 'evictedPods'),
        'since.$': at('door', 'last', 'evictions', 'startedAt'),
        windowSeconds: Math.min(Math.max(p.verificationWindow.toSeconds(), 60), MAX_WATCH_SECONDS),
      }),
      ['verdict'],
      at('replacements'),
    ),
  );
  for (const t of watch.tasks) {
    t.addCatch(p.summarize, { resultPath: at('replacementsError') });
    t.next(p.summarize);
  }
  return new Choice(scope, 'Pods evicted?')
    .when(Condition.isPresent(`${at('door', 'last', 'evictions', 'evictedPods')}[0]`), watch.entry)
    .otherwise(p.summarize);
}
