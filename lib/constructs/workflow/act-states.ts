import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Choice,
  Condition,
  type IChainable,
  Pass,
  Result,
  TaskInput,
  type TaskStateBase,
  Wait,
  WaitTime,
} from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { approvalStates } from './approval-states.js';
import { drainStates } from './drain-states.js';
import { evictStates } from './evict-states.js';
import type { SsmCommand, SsmCommandProps } from './ssm-command.js';
import { invokeNarrowed } from './tasks.js';

/** Props of {@link actStates}. */
export interface ActStatesProps {
  /** The gate right before every Act (re-reads the limits, reserves the hourly-cap slot). */
  readonly actGate: IFunction;
  readonly requestApproval: IFunction;
  readonly verify: IFunction;
  /** Kubernetes API of the cluster (watch the stuck pods start); absent: the fixed window. */
  readonly kubernetes?: IFunction;
  readonly approvalTimeout: Duration;
  readonly verificationWindow: Duration;
  readonly probePolls: number;
  readonly actPolls: number;
  /** JSONPath of the stuck pods the Kubernetes inspection found. */
  readonly stuckPodsPath: string;
  /** A node command of the graph (poll interval and document ARNs filled in). */
  readonly command: (id: string, props: Omit<SsmCommandProps, 'documentArns' | 'pollInterval'>) => SsmCommand;
  readonly summarize: IChainable;
  readonly recordFailure: IChainable;
  /** Catches every error of a task into the failure path. */
  readonly onError: <T extends TaskStateBase>(s: T) => T;
}

/** The Kubernetes function runs at most 15 minutes; the watch ends before that. */
const MAX_WATCH_SECONDS = 13 * 60;

/** Node actions whose success is verified (probe again, watch the pods) rather than just reported. */
const VERIFIED_ACTIONS = ['repair-pause-image', 'restart-runtime'];

/**
 * The Act phase: Act (gate, then the plan's document) → verify a repair, or run the plan's follow-up
 * (PID exhaustion: logs first, then the approval-gated restart, which runs Act again and is
 * verified), or summarize. An approval is followed by a new probe of the node before the gate.
 * Returns the entry of Act and of the approval request.
 */
export function actStates(scope: Construct, p: ActStatesProps): { act: IChainable; approval: TaskStateBase } {
  const verify = verifyStates(scope, p);
  const keepFirst = new Pass(scope, 'Keep first action', {
    parameters: { 'nodeAction.$': '$.plan.nodeAction', 'action.$': '$.action' },
    resultPath: '$.previous',
  });
  const promote = new Pass(scope, 'Follow-up as node action', {
    inputPath: '$.plan.followUp',
    resultPath: '$.plan.nodeAction',
  });
  const success = Condition.stringEquals('$.action.result.status', 'Success');
  const afterAct = new Choice(scope, 'Repair to verify?')
    .when(Condition.and(success, Condition.or(...VERIFIED_ACTIONS.map(isAction))), verify)
    .when(
      Condition.and(
        success,
        Condition.isPresent('$.plan.followUp.documentName'),
        // Not(IsPresent), never IsPresent: false: the local runtime (aws-local-stepfunctions 3.0) reads
        // `IsPresent: false` as always false.
        Condition.not(Condition.isPresent('$.previous')),
      ),
      keepFirst,
    )
    .otherwise(p.summarize);
  const act = p
    .command('Act', {
      documentPath: '$.plan.nodeAction.documentName',
      parametersPath: '$.plan.nodeAction.parameters',
      resultPath: '$.action',
      notManaged: new Pass(scope, 'Node not managed by SSM').next(p.summarize),
      onError: p.recordFailure,
      maxPolls: p.actPolls,
      gate: (s, id) => gateState(s, id, p),
    })
    .next(afterAct);
  const recheck = p
    .command('Recheck probe', {
      documentPath: '$.open.commands.probeNode',
      parametersPath: '$.open.commands.probeParameters',
      resultPath: '$.recheck',
      // The gate refuses to act on a node it cannot probe.
      notManaged: new Pass(scope, 'Recheck: node not managed').next(act),
      onError: p.recordFailure,
      maxPolls: p.probePolls,
    })
    .next(act);
  // Approved: probe the node again, then act (the gate reads that probe).
  const approval = approvalStates(scope, {
    ...p,
    names: { request: 'Request approval', expired: 'Approval expired', approved: 'Approved?' },
    // With the action it answers: "Keep first action" keeps it when the follow-up asks again.
    resultPath: '$.plan.nodeAction.approval',
    onApproved: recheck,
  });
  keepFirst
    .next(promote)
    .next(
      new Choice(scope, 'Follow-up needs approval?')
        .when(Condition.stringEquals('$.plan.nodeAction.disposition', 'approve'), approval)
        .otherwise(act),
    );
  return { act, approval };
}

/**
 * "Act: gate": the one gate right before SendCommand, in place of the stamp. Re-reads kill switch,
 * cooldown, breaker and whether the node still fails, reserves a slot of the hourly cap; a refusal
 * (ActBlockedError) ends the incident recorded and notified without any command sent.
 */
function gateState(scope: Construct, id: string, p: ActStatesProps): TaskStateBase {
  const gate = invokeNarrowed(
    scope,
    id,
    p.actGate,
    TaskInput.fromJsonPathAt('$'),
    ['sentAt', 'counter', 'gate'],
    '$.action',
  );
  gate.addCatch(p.summarize, { errors: ['ActBlockedError'], resultPath: '$.actBlocked' });
  return p.onError(gate);
}

/** The repair's watch left pods stuck and Decide planned their eviction (it runs, asks or dry-runs). */
const EVICTION_PLANNED = Condition.and(
  Condition.isPresent('$.podSignal.verdict.stillStuck[0]'),
  Condition.isPresent('$.plan.evict.disposition'),
  Condition.or(...['auto', 'approve', 'dry-run'].map((d) => Condition.stringEquals('$.plan.evict.disposition', d))),
);

function isAction(id: string): Condition {
  return Condition.stringEquals('$.plan.nodeAction.id', id);
}

/**
 * [Watch the stuck pods start | wait the window] → probe again → Check repair → [evict the pods that
 * stay stuck on the healthy node] → summarize; a runtime
 * restart is checked by "Check restart", after which a failed verification may ask for the drain
 * (drain-states.ts; only with cluster access).
 */
function verifyStates(scope: Construct, p: ActStatesProps): IChainable {
  const check = (id: string) =>
    p.onError(
      invokeNarrowed(
        scope,
        id,
        p.verify,
        TaskInput.fromObject({
          'incidentKey.$': '$.incidentKey',
          'class.$': '$.class',
          'actionSentAt.$': '$.action.sentAt',
          'verifyProbe.$': '$.verifyProbe.result',
          'pods.$': '$.podSignal',
        }),
        ['verified', 'reason', 'nextStep', 'podsStillStuck'],
        '$.verification',
      ),
    );
  const checkRepair = check('Check repair');
  checkRepair.next(p.summarize);
  const { kubernetes } = p;
  const drain = kubernetes ? drainStates(scope, { ...p, kubernetes }) : undefined;
  // The re-created pods get at least a minute (a pull and a sandbox), even with no verification window.
  const watchSeconds = Math.min(Math.max(p.verificationWindow.toSeconds(), 60), MAX_WATCH_SECONDS);
  // Pods still stuck after the watch, an eviction planned: if the node is healthy, evict them (evict-states.ts).
  const evict = kubernetes ? evictStates(scope, { ...p, kubernetes, watchSeconds }) : undefined;
  const verifyProbe = p
    .command('Verify probe', {
      documentPath: '$.open.commands.probeNode',
      parametersPath: '$.open.commands.probeParameters',
      resultPath: '$.verifyProbe',
      notManaged: new Pass(scope, 'Verify probe: node not managed').next(p.summarize),
      onError: p.recordFailure,
      maxPolls: p.probePolls,
      // Branches of the poll loop's own Choice: the pause repair's usual path takes no extra transition.
      finalBranches: [
        ...(drain ? [{ when: isAction('restart-runtime'), next: check('Check restart').next(drain) }] : []),
        ...(evict ? [{ when: EVICTION_PLANNED, next: check('Check repair: pods stuck').next(evict) }] : []),
      ],
    })
    .next(checkRepair);
  const verifyWindow = new Pass(scope, 'No pod signal', {
    result: Result.fromObject({ watched: false }),
    resultPath: '$.podSignal',
  }).next(new Wait(scope, 'Wait verification window', { time: WaitTime.duration(p.verificationWindow) }));
  verifyWindow.next(verifyProbe);
  return podSignal(scope, p, verifyWindow, verifyProbe);
}

/**
 * The positive signal: watch the pods that were stuck on the node until they run (or the window
 * closes). Without cluster access, stuck pods or a working watch: the fixed window instead.
 */
function podSignal(scope: Construct, p: ActStatesProps, verifyWindow: IChainable, verifyProbe: IChainable) {
  const fn = p.kubernetes;
  if (!fn) return verifyWindow;
  const watch = invokeNarrowed(
    scope,
    'Watch pods start',
    fn,
    TaskInput.fromObject({
      action: 'verify',
      'cluster.$': '$.cluster',
      'node.$': '$.node',
      'pods.$': p.stuckPodsPath,
      windowSeconds: Math.min(p.verificationWindow.toSeconds(), MAX_WATCH_SECONDS),
    }),
    ['verdict'],
    '$.podSignal',
  );
  watch.addCatch(verifyWindow, { resultPath: '$.podSignalError' });
  watch.next(verifyProbe);
  return new Choice(scope, 'Pods to watch?')
    .when(Condition.isPresent(`${p.stuckPodsPath}[0]`), watch)
    .otherwise(verifyWindow);
}
