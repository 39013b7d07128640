import {
  type Admission,
  admitFleetEvent,
  type FleetEvent,
  type FleetMember,
  inAccount,
} from '../../core/fleet/fleet.js';
import type { IngestStats } from '../../core/incident/ingest.js';
import { type IngestDeps, type IngestOutcome, ingest, keepAndOpen } from '../ingest/ingest-service.js';

export interface IntakeDeps extends IngestDeps {
  /** The accounts and Regions the hub acts in (a removed account is no longer listed). */
  readonly members: readonly FleetMember[];
}

export type IntakeOutcome =
  | {
      readonly admitted: false;
      readonly account: string;
      readonly region: string;
      readonly reason: string;
      readonly rejectKey?: string;
    }
  | ({ readonly admitted: true; readonly account: string; readonly region: string } & IngestOutcome);

/**
 * The hub's door for what spokes send: an event whose claims are not its sender's, or from an account
 * the hub no longer acts in, is refused and kept (under `rejected/`, with why); an admitted spoke batch
 * opens or joins its incidents in the sender's account and Region; an admitted CloudTrail event goes
 * through the ingest path as the sender's. The account is the one EventBridge stamped, never the text.
 */
export async function intake(event: FleetEvent, requestId: string, deps: IntakeDeps): Promise<IntakeOutcome> {
  const a = admitFleetEvent(event, deps.members);
  if (!a.admitted) {
    const record = JSON.stringify(event).slice(0, 16_384);
    const rejectKey = await deps.rejects.keep([{ reason: `refused: ${a.reason}`, record }], requestId, deps.now());
    return { admitted: false, account: a.account, region: a.region, reason: a.reason, rejectKey };
  }
  const where = { account: a.account, region: a.region };
  // Another account's facts are not the hub's to look up with its own credentials: scope without them.
  if (a.kind === 'cloudtrail')
    return { admitted: true, ...where, ...(await ingest(event, requestId, { ...deps, facts: undefined, where })) };
  return { admitted: true, ...where, ...(await openBatch(a, requestId, deps)) };
}

async function openBatch(
  a: Extract<Admission, { kind: 'spoke' }>,
  requestId: string,
  deps: IntakeDeps,
): Promise<IngestOutcome> {
  const now = deps.now();
  const { batch } = a;
  const stats: IngestStats = {
    received: batch.received,
    classified: batch.candidates.reduce((n, c) => n + c.count, 0),
    unknown: 0,
    rejected: batch.rejects.length,
    controlMessages: 0,
    outOfScope: 0,
    byClass: {},
  };
  for (const c of batch.candidates) stats.byClass[c.class] = (stats.byClass[c.class] ?? 0) + c.count;
  const rejects = batch.rejects.map((r) => ({ ...r, reason: `${a.account}/${a.region}: ${r.reason}` }));
  const candidates = batch.candidates.map((c) => inAccount(c, a.account, a.region));
  return keepAndOpen(rejects, candidates, stats, requestId, deps, now);
}
