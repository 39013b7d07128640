import * as z from 'zod/mini';
import type { Finding } from '../../core/contract/findings.js';
import { probeFindings } from '../../core/contract/probe.js';
import type { DoorState } from '../../core/door/state.js';
import { type Diagnosis, executionStateSchema, openResultSchema } from '../../core/workflow/execution-state.js';

/**
 * The execution state Decide reads (the whole state is sent; what it does not read is dropped): the
 * incident, what Open incident found, the resolved node (or the error of Resolve node), the
 * diagnosis by branch, and the door's probe of the node.
 */
export const decideEventSchema = z.extend(
  z.pick(executionStateSchema, {
    incidentId: true,
    incidentKey: true,
    class: true,
    cluster: true,
    entities: true,
    node: true,
    resolveError: true,
    diagnosis: true,
    door: true,
    agentRequest: true,
  }),
  { open: openResultSchema },
);

/** The state Decide reads: the incident, what Open incident found, the node, the diagnosis, the door's probe. */
export type DecideInput = z.output<typeof decideEventSchema>;

/** The node probe as Decide reads it: its status, the node's configured sandbox image, its findings. */
export interface ProbeView {
  readonly status: string;
  readonly sandboxImage?: string;
  readonly findings: readonly Finding[];
}

/**
 * The diagnosis probe the door ran (its result under the `probe` slot), or undefined when none was
 * asked. A door that failed on it (the function's error) is a probe that did not run: an `error`
 * finding, so the plan fails closed.
 */
export function probeOf(door: DoorState | undefined): ProbeView | undefined {
  const r = door?.done?.probe;
  if (!r) {
    if (door?.call.slot !== 'probe' || !door.error) return undefined;
    const error = { Error: door.error.Error ?? 'DoorError', Cause: door.error.Cause ?? '' };
    return { status: 'CommandError', findings: probeFindings({ status: 'CommandError', error }) };
  }
  const c = r.command;
  if (!c)
    return { status: 'CommandError', findings: probeFindings({ status: 'CommandError', error: { Error: r.reason } }) };
  // A command SendCommand refused names the SDK error (AccessDenied: the probe finding says which tags admit).
  const refused = c.status === 'CommandError' || c.status === 'NotManaged';
  const error = refused && c.statusDetails ? { error: { Error: c.statusDetails, Cause: c.stderrExcerpt ?? '' } } : {};
  return {
    status: c.status,
    ...(c.facts?.sandboxImage ? { sandboxImage: c.facts.sandboxImage } : {}),
    findings: c.findings ?? probeFindings({ status: c.status, stderr: c.stderrExcerpt, ...error }),
  };
}

/** Every finding of the diagnosis, by branch name, and the probe's. */
export function diagnosisFindings(d: Diagnosis | undefined, probe: ProbeView | undefined): Finding[] {
  const branches = d ? [d.iam, d.ecr, d.network, d.eks, d.changes, d.kubernetes] : [];
  return [...branches.flatMap((b) => b.findings), ...(probe?.findings ?? [])];
}
