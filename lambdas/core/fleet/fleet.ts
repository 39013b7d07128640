import * as z from 'zod/mini';
import { FAILURE_CLASSES, type FailureClass } from '../contract/failure-classes.js';
import { SIGNALS } from '../contract/signals.js';
import type { IncidentCandidate } from '../incident/incidents.js';

// The fleet's contracts, shared by lib/ (the hub and spoke constructs) and lambdas/ (the spoke's
// forwarder, the hub's intake, the hub's credentials per account/Region): names, event shapes and
// the hub's admission of what a spoke sends.

/** `source` of the events a spoke's ingest puts on its account's bus (PutEvents refuses `aws.` sources). */
export const SPOKE_SOURCE = 'pod-doctor.spoke';
/** `detail-type` of a spoke's batch of incident candidates. */
export const SPOKE_DETAIL_TYPE = 'pod-doctor incident candidates';

/** The IAM path of every hub role a spoke role trusts (`aws:PrincipalArn` is pinned to it). */
export const hubRolePath = (fleet: string): string => `/pod-doctor/${fleet}/`;

/**
 * The spoke role's name in each account: one per Region (a StackSet instance per Region creates its
 * own), the fleet's name in it so two fleets in one organization never share a role.
 */
export const spokeRoleName = (fleet: string, region: string): string => `pod-doctor-${fleet}-spoke-${region}`;

/** The ARN of the spoke role the hub assumes for `account` in `region`. */
export const spokeRoleArn = (partition: string, fleet: string, account: string, region: string): string =>
  `arn:${partition}:iam::${account}:role/${spokeRoleName(fleet, region)}`;

/** A fleet name: lower-case letters, digits and hyphens (it is part of role names and paths). */
export const FLEET_NAME = /^[a-z][a-z0-9-]{0,19}$/;
const ACCOUNT_ID = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** One account × Region the hub acts in, as its configuration lists it. */
export interface FleetMember {
  /** The member's 12-digit account id. */
  readonly account: string;
  /** The Regions of the account pod-doctor serves. */
  readonly regions: readonly string[];
}

const text = (max: number) => z.string().check(z.maxLength(max));

/** One candidate as a spoke sends it: the shape `aggregate` makes, every field bounded. */
const candidateSchema = z.object({
  key: text(1200),
  cluster: text(100),
  class: z.enum(FAILURE_CLASSES.filter((c): c is Exclude<FailureClass, 'unknown'> => c !== 'unknown')),
  kind: z.enum(['failure', 'change']),
  scope: z.enum(['node', 'subnet', 'image', 'cluster']),
  scopeValue: text(600),
  cause: text(2000),
  count: z.number().check(z.int(), z.minimum(1)),
  firstSeen: z.number(),
  lastSeen: z.number(),
  entities: z.record(z.string(), text(2000)),
  pods: z.array(text(400)).check(z.maxLength(20)),
  samples: z.array(text(2000)).check(z.maxLength(5)),
  /** The detection sources its occurrences came from (absent from an older spoke: none known). */
  signals: z._default(z.array(z.enum(SIGNALS)).check(z.maxLength(SIGNALS.length)), []),
});

/** What a spoke's forwarder puts in `detail`: where it is, its candidates and what it could not read. */
export const spokeBatchSchema = z.object({
  account: z.string().check(z.regex(ACCOUNT_ID)),
  region: z.string().check(z.regex(REGION)),
  candidates: z.array(candidateSchema).check(z.maxLength(100)),
  rejects: z.array(z.object({ reason: text(2000), record: text(16_384) })).check(z.maxLength(100)),
  received: z.number().check(z.int(), z.minimum(0)),
});
export type SpokeBatch = z.output<typeof spokeBatchSchema>;

/** The envelope EventBridge stamps: `account` and `region` are the sender's, whatever `detail` claims. */
export const fleetEventSchema = z.looseObject({
  source: z.string(),
  'detail-type': z.string(),
  account: z.string(),
  region: z.string(),
  detail: z.unknown(),
});
export type FleetEvent = z.output<typeof fleetEventSchema>;

/** What the hub decided about one event on its bus. */
export type Admission =
  | {
      readonly admitted: true;
      readonly kind: 'spoke';
      readonly account: string;
      readonly region: string;
      readonly batch: SpokeBatch;
    }
  | { readonly admitted: true; readonly kind: 'cloudtrail'; readonly account: string; readonly region: string }
  | { readonly admitted: false; readonly account: string; readonly region: string; readonly reason: string };

/** Error for a fleet configuration the hub cannot act on (a member listed twice, a bad id). */
export class FleetConfigError extends Error {
  override readonly name = 'FleetConfigError';
}

/** Whether the hub acts in `account` × `region` (a removed account or an unlisted Region: no). */
export function isMember(members: readonly FleetMember[], account: string, region: string): boolean {
  return members.some((m) => m.account === account && m.regions.includes(region));
}

const refuse = (e: FleetEvent, reason: string): Admission => ({
  admitted: false,
  account: e.account,
  region: e.region,
  reason,
});

/**
 * Admits an event from the hub's bus only when what it claims is what EventBridge stamped: a spoke's
 * batch names the account and Region that sent it, a CloudTrail event was recorded in the account
 * that sent it (`recipientAccountId`; `awsRegion` the sender's Region), and the sender is a member the
 * hub acts in. The bus policy admits the organization only; this decides the account within it.
 */
export function admitFleetEvent(e: FleetEvent, members: readonly FleetMember[]): Admission {
  if (!isMember(members, e.account, e.region))
    return refuse(e, `account ${e.account} in ${e.region} is not a member the hub acts in`);
  if (e.source === SPOKE_SOURCE) {
    if (e['detail-type'] !== SPOKE_DETAIL_TYPE) return refuse(e, `unknown spoke detail-type "${e['detail-type']}"`);
    const parsed = spokeBatchSchema.safeParse(e.detail);
    if (!parsed.success) return refuse(e, `spoke batch unreadable: ${z.prettifyError(parsed.error)}`.slice(0, 2000));
    const batch = parsed.data;
    if (batch.account !== e.account || batch.region !== e.region)
      return refuse(e, `batch claims ${batch.account} in ${batch.region} but was sent by ${e.account} in ${e.region}`);
    return { admitted: true, kind: 'spoke', account: e.account, region: e.region, batch };
  }
  if (e.source.startsWith('aws.')) {
    const detail = (e.detail ?? {}) as { recipientAccountId?: unknown; awsRegion?: unknown };
    if (detail.recipientAccountId !== e.account)
      return refuse(e, `CloudTrail event recorded in ${String(detail.recipientAccountId)} was sent by ${e.account}`);
    // IAM is global: its events carry us-east-1 whichever Region forwards them.
    if (detail.awsRegion !== e.region && detail.awsRegion !== 'us-east-1')
      return refuse(e, `CloudTrail event of ${String(detail.awsRegion)} was sent from ${e.region}`);
    return { admitted: true, kind: 'cloudtrail', account: e.account, region: e.region };
  }
  return refuse(e, `source "${e.source}" is not one the hub reads`);
}

/** A candidate of `account` × `region`: its key names both, so two accounts' clusters never share an incident. */
export function inAccount(c: IncidentCandidate, account: string, region: string): IncidentCandidate {
  return { ...c, key: `${account}|${region}|${c.key}`, account, region };
}

/** Validates the hub's member list. @throws FleetConfigError */
export function fleetMembers(members: readonly FleetMember[]): readonly FleetMember[] {
  const seen = new Set<string>();
  for (const m of members) {
    if (!ACCOUNT_ID.test(m.account)) throw new FleetConfigError(`fleet account "${m.account}" is not a 12-digit id`);
    if (seen.has(m.account)) throw new FleetConfigError(`fleet account ${m.account} is listed twice`);
    seen.add(m.account);
    const bad = m.regions.filter((r) => !REGION.test(r));
    if (bad.length) throw new FleetConfigError(`fleet account ${m.account}: "${bad[0]}" is not a Region`);
  }
  return members;
}
