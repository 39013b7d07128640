import type { Sampler } from './latency-model.js';

/** The fields of an ASL state the walk reads. */
export interface AslState {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: readonly { readonly Next?: string; readonly Variable?: string; readonly StringEquals?: string }[];
  readonly Branches?: readonly { readonly StartAt: string; readonly States: Record<string, AslState> }[];
  readonly Seconds?: number;
  readonly SecondsPath?: string;
  readonly Resource?: string;
  readonly Parameters?: Record<string, unknown>;
  readonly ResultPath?: string;
}

export interface Timeline {
  /** Seconds since the first log line. */
  t: number;
  /** The SSM command the door sent and polls for. */
  pending?: { doneAt: number; script: 'probe' | 'repair' };
  /** The door call the path is in (set by its "<caller>: request" Pass): its slot and continuation. */
  call?: { slot: string; returnTo: string; sent: boolean };
  /** When the stuck pods run again (repair done + kubelet's next retry + start). */
  podsRunningAt?: number;
  /** End of the verdict state. */
  verifiedAt?: number;
  readonly warm: Set<string>;
  readonly entered: string[];
  /** Wait seconds on the path. */
  waited: number;
}

export interface WalkOptions {
  /** States an execution of this definition entered, in order (which branch each Choice took). */
  readonly visited: readonly string[];
  readonly sample: Sampler;
  /** The state whose end is "verified". */
  readonly verdictState: string;
}

export class PathError extends Error {
  override readonly name = 'PathError';
}

const MAX_STEPS = 2_000;

function isLambda(s: AslState): boolean {
  return /:lambda:invoke$|:function:/.test(s.Resource ?? '');
}

function lambdaTask(s: AslState, tl: Timeline, sample: Sampler): void {
  const fn = String(s.Parameters?.FunctionName ?? s.Resource);
  tl.t += sample('taskOverhead') + (tl.warm.has(fn) ? 0 : sample('lambdaColdInit')) + sample('lambdaHandler');
  tl.warm.add(fn);
  // The Kubernetes function's verify watch returns when the stuck pods run (or at once when they already do).
  const payload = s.Parameters?.Payload as { action?: string } | undefined;
  if (payload?.action === 'verify' && tl.podsRunningAt !== undefined)
    tl.t = Math.max(tl.t, tl.podsRunningAt + sample('apiCall'));
}

/** The door's slots that send a node command, and which script runs. */
const COMMAND_SLOTS: Readonly<Record<string, 'probe' | 'repair'>> = {
  probe: 'probe',
  verifyProbe: 'probe',
  act: 'repair',
  followUp: 'repair',
};

/** The door's Task: the Lambda call whose payload (its Parameters: the response only) carries the door's state. */
const isDoor = (s: AslState) => isLambda(s) && 'door.$' in (s.Parameters ?? {});

/** "Door: await command": a task-token Task handed the command's id; the command's status-change event resumes it. */
const isCommandAwait = (s: AslState) =>
  /waitForTaskToken$/.test(s.Resource ?? '') &&
  'commandId.$' in ((s.Parameters?.Payload as Record<string, unknown> | undefined) ?? {});

/**
 * The await: its function stores the token (a Lambda call), then the Task ends when the command's
 * status-change event has reached the same function through EventBridge and it resumed the execution.
 */
function awaitTask(tl: Timeline, sample: Sampler): void {
  if (!tl.pending) return;
  const resumed = tl.pending.doneAt + sample('statusEvent') + sample('lambdaHandler') + sample('taskOverhead');
  tl.t = Math.max(tl.t, resumed);
}

/**
 * One door call: the first sends the call's command (for a slot that runs one), each later one polls
 * it; the poll after the command ended takes its result (the repair's pods start after it).
 */
function doorTask(tl: Timeline, sample: Sampler): void {
  const call = tl.call;
  if (tl.pending) {
    if (tl.pending.doneAt > tl.t) return;
    if (tl.pending.script === 'repair')
      tl.podsRunningAt =
        tl.pending.doneAt + sample('kubeletRetryPhase') * sample('kubeletRetryPeriod') + sample('podStart');
    tl.pending = undefined;
    return;
  }
  if (!call || call.sent) return;
  call.sent = true;
  const script = COMMAND_SLOTS[call.slot];
  if (script)
    tl.pending = {
      doneAt: tl.t + sample('ssmDelivery') + sample(script === 'probe' ? 'probeScript' : 'repairScript'),
      script,
    };
}

/** A "<caller>: request" Pass: the door call it opens. */
function doorCall(s: AslState, tl: Timeline): void {
  if (s.ResultPath !== '$.door.call') return;
  tl.call = { slot: String(s.Parameters?.slot), returnTo: String(s.Parameters?.returnTo), sent: false };
}

function cost(name: string, s: AslState, tl: Timeline, o: WalkOptions): void {
  if (s.Type === 'Wait') {
    if (s.Seconds === undefined) throw new PathError(`Wait state ${name}: only Seconds is modelled`);
    tl.t += s.Seconds;
    tl.waited += s.Seconds;
  } else if (s.Type === 'Parallel') {
    const start = tl.t;
    let end = start;
    for (const b of s.Branches ?? []) {
      const branch: Timeline = { ...tl, t: start, pending: undefined };
      walk(b.States, b.StartAt, branch, o);
      end = Math.max(end, branch.t);
      tl.waited = Math.max(tl.waited, branch.waited);
      if (branch.podsRunningAt !== undefined) tl.podsRunningAt = branch.podsRunningAt;
    }
    tl.t = end;
  } else if (s.Type === 'Pass') {
    doorCall(s, tl);
  } else if (s.Type === 'Task') {
    if (isLambda(s)) lambdaTask(s, tl, o.sample);
    else tl.t += o.sample('taskOverhead');
    if (isDoor(s)) doorTask(tl, o.sample);
    if (isCommandAwait(s)) awaitTask(tl, o.sample);
  }
}

/** The next state: a Choice takes the branch the execution took, or loops while a command is pending. */
function next(name: string, s: AslState, tl: Timeline, walked: ReadonlySet<string>, o: WalkOptions): string {
  if (s.Type !== 'Choice') {
    if (!s.Next) throw new PathError(`state ${name} has no Next`);
    return s.Next;
  }
  const door = doorChoice(s, tl);
  if (door) return door;
  const targets = [...(s.Choices ?? []).map((c) => c.Next), s.Default].filter(
    (t): t is string => t !== undefined && o.visited.includes(t),
  );
  const back = targets.find((t) => walked.has(t));
  if (back && tl.pending && tl.pending.doneAt > tl.t) return back;
  const forward = targets.filter((t) => !walked.has(t));
  const first = forward.sort((a, b) => o.visited.indexOf(a) - o.visited.indexOf(b))[0];
  if (!first) throw new PathError(`Choice ${name}: no branch of it was entered`);
  return first;
}

/**
 * The door's Choices: after its Task, await the command's completion event (or, in a definition
 * without one, wait the poll interval) while the command runs, else back; back to the caller the
 * call names. Undefined for any other Choice.
 */
function doorChoice(s: AslState, tl: Timeline): string | undefined {
  const choices = s.Choices ?? [];
  if (choices.some((c) => c.Variable === '$.door.run.step')) {
    const next = (step: string) => choices.find((c) => c.StringEquals === step)?.Next;
    return tl.pending ? (next('await') ?? next('wait')) : s.Default;
  }
  if (choices.some((c) => c.Variable === '$.door.call.returnTo')) {
    const back = choices.find((c) => c.StringEquals === tl.call?.returnTo)?.Next;
    if (!back) throw new PathError(`the door has no way back to "${tl.call?.returnTo}"`);
    return back;
  }
  return undefined;
}

/** Walks states from `start` until an end state, adding each state's time to the timeline. */
export function walk(states: Record<string, AslState>, start: string, tl: Timeline, o: WalkOptions): void {
  const walked = new Set<string>();
  let name: string | undefined = start;
  for (let step = 0; name !== undefined; step += 1) {
    if (step > MAX_STEPS) throw new PathError('the path does not end');
    const s: AslState | undefined = states[name];
    if (!s) throw new PathError(`no state ${name}`);
    tl.entered.push(name);
    walked.add(name);
    tl.t += o.sample('stateTransition');
    cost(name, s, tl, o);
    if (name === o.verdictState) tl.verifiedAt ??= tl.t;
    if (s.Type === 'Succeed' || s.Type === 'Fail' || s.End) return;
    name = next(name, s, tl, walked, o);
  }
}

/** First log line → workflow start: shipping, subscription delivery, the ingest function. */
export function beforeWorkflow(sample: Sampler): number {
  return sample('logShipping') + sample('subscriptionDelivery') + sample('lambdaColdInit') + sample('ingestHandler');
}

export interface PathTime {
  readonly verifiedAt: number;
  readonly endAt: number;
  readonly entered: readonly string[];
  readonly waited: number;
}

/** One draw of the whole path: first log line → verdict (and → the end of the execution). */
export function pathTime(definition: Record<string, unknown>, o: WalkOptions): PathTime {
  const tl: Timeline = { t: beforeWorkflow(o.sample), warm: new Set(), entered: [], waited: 0 };
  walk(definition.States as Record<string, AslState>, String(definition.StartAt), tl, o);
  if (tl.verifiedAt === undefined) throw new PathError(`the path never reaches ${o.verdictState}`);
  return { verifiedAt: tl.verifiedAt, endAt: tl.t, entered: tl.entered, waited: tl.waited };
}
