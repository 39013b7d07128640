import type { Sampler } from './latency-model.js';

/** The fields of an ASL state the walk reads. */
export interface AslState {
  readonly Type: string;
  readonly Next?: string;
  readonly End?: boolean;
  readonly Default?: string;
  readonly Choices?: readonly { readonly Next?: string }[];
  readonly Branches?: readonly { readonly StartAt: string; readonly States: Record<string, AslState> }[];
  readonly Seconds?: number;
  readonly SecondsPath?: string;
  readonly Resource?: string;
  readonly Parameters?: Record<string, unknown>;
}

export interface Timeline {
  /** Seconds since the first log line. */
  t: number;
  /** The SSM command the path is polling for. */
  pending?: { doneAt: number; script: 'probe' | 'repair' };
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

function commandTask(s: AslState, tl: Timeline, sample: Sampler): void {
  tl.t += sample('taskOverhead');
  if (/ssm:sendCommand$/.test(s.Resource ?? '')) {
    const document = JSON.stringify(s.Parameters?.['DocumentName.$'] ?? s.Parameters?.DocumentName ?? '');
    const script = /probe/i.test(document) ? 'probe' : 'repair';
    tl.pending = {
      doneAt: tl.t + sample('ssmDelivery') + sample(script === 'probe' ? 'probeScript' : 'repairScript'),
      script,
    };
    return;
  }
  if (/ssm:getCommandInvocation$/.test(s.Resource ?? '') && tl.pending && tl.pending.doneAt <= tl.t) {
    if (tl.pending.script === 'repair')
      tl.podsRunningAt =
        tl.pending.doneAt + sample('kubeletRetryPhase') * sample('kubeletRetryPeriod') + sample('podStart');
    tl.pending = undefined;
  }
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
  } else if (s.Type === 'Task') {
    if (isLambda(s)) lambdaTask(s, tl, o.sample);
    else commandTask(s, tl, o.sample);
  }
}

/** The next state: a Choice takes the branch the execution took, or loops while a command is pending. */
function next(name: string, s: AslState, tl: Timeline, walked: ReadonlySet<string>, o: WalkOptions): string {
  if (s.Type !== 'Choice') {
    if (!s.Next) throw new PathError(`state ${name} has no Next`);
    return s.Next;
  }
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
