import { type Action, actionLine, isNodeCommand, isRemedy, requestDigest } from '../../core/door/action-request.js';
import {
  configuredDisposition,
  effectiveDisposition,
  type GateVerdict,
  gate,
  KIND_RULES,
} from '../../core/door/gate.js';
import type { DoorResult, DoorRun, DoorState } from '../../core/door/state.js';
import { NODE_EVIDENCE_MAX_AGE_MS } from '../../core/policy/cause-evidence.js';
import { clearActing, markActing, readCall, recordPending } from './call-ledger.js';
import { breakerOf, killSwitchOf, rollbackGate } from './door-facts.js';
import type { DoorInput } from './door-input.js';
import { answerOf, callRef, finish, replayed, requestOf, tableOf, withRun } from './door-results.js';
import {
  type DoorContext,
  type DoorDeps,
  DoorTargetError,
  type Prepared,
  type PrepareFailure,
  RecheckTargetError,
  RemedyTargetError,
} from './executor.js';
import { pollCommand } from './node-commands.js';
import { nodeCommand, nodeKubernetes } from './node-executor.js';
import { putNodeEvidence, readGrant } from './records.js';
import { remedy } from './remedy-executor.js';
import { reportEventsKind } from './report-kind.js';
import { CapReachedError, CooldownHeldError, type Reservation, releaseReservation, reserve } from './reservations.js';
import { resolveTarget } from './targets.js';

/**
 * The door: every change pod-doctor makes, and the node probe, passes here as one typed request,
 * gated right before it runs (lambdas/core/door/gate.ts) and carried out with the only mutating
 * clients there are. One invocation is one step of the door's states: gate and act (or ask, or
 * probe the node for fresh evidence), or poll a command it sent.
 */

const iso = (t: number) => new Date(t).toISOString();

/** One step of the door for the current call. */
export async function doorStep(input: DoorInput, deps: DoorDeps): Promise<DoorState> {
  const run = input.door.run;
  const current = run?.slot === input.door.call.slot && run.step !== 'done' ? run : undefined;
  if ((current?.step === 'await' || current?.step === 'wait') && current.pending) return pollStep(input, current, deps);
  return gateStep(input, current?.probed ?? false, deps);
}

async function prepare(a: Action, ctx: DoorContext): Promise<Prepared | PrepareFailure> {
  if (isNodeCommand(a)) return nodeCommand(a, ctx);
  if (isRemedy(a)) return remedy(a, ctx);
  if (a.kind === 'report-events') return reportEventsKind(a, ctx);
  return nodeKubernetes(a, ctx);
}

const TARGET_ERRORS = [DoorTargetError, RemedyTargetError, RecheckTargetError];

/** The target, corroborated, and the kind's part prepared; or the refusal when the target is not what it claims. */
async function contextOf(
  input: DoorInput,
  deps: DoorDeps,
  now: number,
): Promise<{ ctx: DoorContext; prepared: Prepared | PrepareFailure } | { refusal: string }> {
  const request = requestOf(input);
  try {
    const node = await resolveTarget(request, deps);
    const ctx: DoorContext = { request, ...(node ? { node } : {}), deps, now, polls: input.polls };
    return { ctx, prepared: await prepare(request.action, ctx) };
  } catch (e) {
    if (TARGET_ERRORS.some((t) => e instanceof t)) return { refusal: (e as Error).message };
    throw e;
  }
}

/** Gate the call's request and act on the verdict. */
async function gateStep(input: DoorInput, probed: boolean, deps: DoorDeps): Promise<DoorState> {
  // A retried call: what an attempt before this one recorded stands; the gate never runs twice for one change.
  const again = await replayed(input, deps, await readCall(callRef(input, deps), tableOf(deps)), probed);
  if (again) return again;
  const now = deps.now();
  const c = await contextOf(input, deps, now);
  const request = requestOf(input);
  if ('refusal' in c) return finish(input, deps, { outcome: 'refused', code: 'target', reason: c.refusal }, now);
  if ('failed' in c.prepared)
    return finish(
      input,
      deps,
      { outcome: 'failed', reason: c.prepared.failed.reason, record: c.prepared.failed.record },
      now,
    );
  const { ctx, prepared } = c;
  const digest = requestDigest(request, prepared.diff);
  const table = { ddb: deps.ddb, tableName: deps.config.tableName };
  const grantedAt = await readGrant(digest, table);
  const kind = request.action.kind;
  const cause = await prepared.cause(grantedAt ?? now - NODE_EVIDENCE_MAX_AGE_MS);
  const verdict = gate({
    request,
    disposition: effectiveDisposition(
      request.disposition,
      configuredDisposition(kind, {
        mode: deps.config.modes[request.incident.class],
        remedyTier: deps.config.remedies[request.incident.class],
      }),
    ),
    killSwitch: KIND_RULES[kind].mutating ? await killSwitchOf(deps) : { on: false, readable: true },
    granted: grantedAt !== undefined,
    ...(answerOf(input) ? { answer: answerOf(input) } : {}),
    cause,
    probed,
    ...(KIND_RULES[kind].nodeLevel ? { breaker: await breakerOf(ctx) } : {}),
    limits: deps.config.limits,
  });
  return onVerdict(input, { input, ctx, prepared, digest, probed, why: cause.reason }, verdict);
}

interface Gated {
  readonly input: DoorInput;
  readonly ctx: DoorContext;
  readonly prepared: Prepared;
  readonly digest: string;
  readonly probed: boolean;
  /** What the target's own evidence shows (the approver reads it). */
  readonly why: string;
}

async function onVerdict(input: DoorInput, g: Gated, verdict: GateVerdict): Promise<DoorState> {
  const { deps, now, request } = g.ctx;
  const { call } = input.door;
  switch (verdict.verdict) {
    case 'ask':
      return withRun(input, {
        slot: call.slot,
        step: 'ask',
        probed: g.probed,
        ask: {
          slot: call.slot,
          kind: request.action.kind,
          digest: g.digest,
          line: actionLine(request.action),
          description: call.request.description,
          diff: [...g.prepared.diff],
          reason: `${g.why} (${verdict.reason})`,
        },
      });
    case 'probe':
      return probeForEvidence(input, g);
    case 'refuse': {
      const record = verdict.code === 'cause-gone' || verdict.code === 'cannot' ? g.prepared.refused : undefined;
      return finish(
        input,
        deps,
        {
          outcome: verdict.code === 'not-approved' ? 'not-approved' : 'refused',
          code: verdict.code,
          reason: verdict.reason,
          ...record,
        },
        now,
        g.digest,
      );
    }
    case 'run':
      return runStep(input, g, verdict.dryRun);
  }
}

/** No fresh probe of the node: the door runs the probe itself first (its poll loop), then gates again. */
async function probeForEvidence(input: DoorInput, g: Gated): Promise<DoorState> {
  const a = g.ctx.request.action;
  const instanceId = 'node' in a && a.node ? a.node.instanceId : '';
  const probe = nodeCommand({ kind: 'probe-node', node: { instanceId } }, g.ctx);
  const out = await probe.act(async () => undefined);
  if ('pending' in out)
    return withRun(input, {
      slot: input.door.call.slot,
      step: 'await',
      probed: true,
      pending: { ...out.pending, purpose: 'evidence' },
    });
  const table = { ddb: g.ctx.deps.ddb, tableName: g.ctx.deps.config.tableName };
  await putNodeEvidence(
    instanceId,
    { at: g.ctx.now, notRun: `the probe before acting did not run (${out.result.command?.status ?? 'not sent'})` },
    { execution: g.ctx.request.execution, now: g.ctx.now },
    table,
  );
  return gateStep(input, true, g.ctx.deps);
}

/** The cap slot and cooldowns of a change (idempotent per execution and slot), or the refusal. */
async function reserveFor(g: Gated, dryRun: boolean): Promise<{ reservation?: Reservation } | { refused: DoorState }> {
  const { deps, request, now } = g.ctx;
  const rules = KIND_RULES[request.action.kind];
  if (dryRun || !rules.mutating || rules.hourlyCap === false) return {};
  try {
    const reservation = await reserve(
      {
        cluster: request.incident.cluster,
        cap: deps.config.limits.maxNodeActionsPerClusterPerHour,
        slotHolder: `${request.execution}#${request.slot}`,
        cooldowns: g.prepared.cooldowns,
      },
      { ...tableOf(deps), now },
    );
    return { reservation };
  } catch (e) {
    if (!(e instanceof CapReachedError || e instanceof CooldownHeldError)) throw e;
    return { refused: await refusedBy(e, g) };
  }
}

async function refusedBy(e: CapReachedError | CooldownHeldError, g: Gated): Promise<DoorState> {
  const { deps, now } = g.ctx;
  const code = e instanceof CapReachedError ? 'cap' : 'cooldown';
  return finish(g.input, deps, { outcome: 'refused', code, reason: e.message }, now, g.digest);
}

/**
 * The change: the call's ledger row says it begins before it runs, and holds its command or result
 * right after, before anything else can fail; a SendCommand that threw sent nothing, so that alone
 * clears the mark and lets a retry gate again.
 */
async function runStep(input: DoorInput, g: Gated, dryRun: boolean): Promise<DoorState> {
  const { ctx, prepared } = g;
  const { deps, request, now } = ctx;
  const r = await reserveFor(g, dryRun);
  if ('refused' in r) return r.refused;
  const ref = callRef(input, deps);
  const marked = !dryRun && KIND_RULES[request.action.kind].mutating;
  if (marked && !(await markActing(ref, { ...resultHead(g), at: now }, tableOf(deps))))
    return (
      (await replayed(input, deps, await readCall(ref, tableOf(deps)), g.probed)) ?? gateStep(input, g.probed, deps)
    );
  let out: Awaited<ReturnType<Prepared['act']>>;
  try {
    out = dryRun ? await prepared.dryRun() : await prepared.act(rollbackGate(ctx));
  } catch (e) {
    if (marked && prepared.throwsOnlyUnchanged) await clearActing(ref, now, tableOf(deps));
    throw e;
  }
  if ('pending' in out) {
    const pending = { ...out.pending, ...(r.reservation ? { reservation: r.reservation } : {}) };
    await recordPending(ref, pending, now, tableOf(deps));
    return withRun(input, { slot: request.slot, step: 'await', probed: g.probed, pending });
  }
  const done = await finish(
    input,
    deps,
    {
      ...out.result,
      ...(answerOf(input) ? { approval: answerOf(input) } : {}),
      ...(out.changed ? { sentAt: iso(now) } : {}),
    },
    now,
    g.digest,
    out.changed,
  );
  if (r.reservation && !out.changed) await releaseReservation(r.reservation, tableOf(deps));
  return done;
}

const resultHead = (g: Gated) => ({
  slot: g.ctx.request.slot,
  kind: g.ctx.request.action.kind,
  line: actionLine(g.ctx.request.action),
  digest: g.digest,
});

/** Poll the command the door sent; a final status ends the call (or, for the evidence probe, gates again). */
async function pollStep(input: DoorInput, run: DoorRun, deps: DoorDeps): Promise<DoorState> {
  const p = run.pending;
  if (!p) return gateStep(input, run.probed, deps);
  const request = requestOf(input);
  const probe = p.purpose === 'evidence' || request.action.kind === 'probe-node';
  const r = await pollCommand(
    p,
    { incidentId: request.incident.id, probe, now: deps.now(), pollSeconds: input.pollSeconds },
    { ssm: deps.ssm, s3: deps.s3, config: deps.config },
  );
  // Still running after its completion event (GetCommandInvocation lags it) or without one: the poll loop.
  if ('running' in r) return withRun(input, { ...run, step: 'wait', pending: r.running });
  const now = deps.now();
  const table = { ddb: deps.ddb, tableName: deps.config.tableName };
  if (probe) await recordProbe(p.instanceId, r.final, { execution: request.execution, now }, table);
  if (p.purpose === 'evidence') return gateStep(input, true, deps);
  const reached = r.final.status !== 'Undeliverable';
  if (p.reservation && !reached) await releaseReservation(p.reservation, table);
  const mutating = KIND_RULES[request.action.kind].mutating;
  return finish(
    input,
    deps,
    {
      outcome: 'done',
      reason: `${request.action.kind}: ${r.final.status}`,
      command: r.final,
      sentAt: p.sentAt,
      ...(answerOf(input) ? { approval: answerOf(input) } : {}),
    },
    now,
    requestDigest(request),
    mutating && reached,
  );
}

/** The probe's findings become the node's evidence; a probe that did not run says why. */
async function recordProbe(
  instanceId: string,
  c: NonNullable<DoorResult['command']>,
  o: { readonly execution: string; readonly now: number },
  table: { ddb: DoorDeps['ddb']; tableName: string },
): Promise<void> {
  const ran = c.status === 'Success' && !(c.findings ?? []).some((f) => f.id === 'node.probe');
  await putNodeEvidence(
    instanceId,
    ran
      ? { at: o.now, findings: c.findings ?? [], ...(c.commandId ? { commandId: c.commandId } : {}) }
      : { at: o.now, notRun: `the probe before acting did not run (${c.status})` },
    o,
    table,
  );
}
