import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { isMemberReach, type Reach, spokeSessionName } from '../../core/fleet/fleet-reach.js';
import { type AssumeRole, SpokeBroker } from './credential-broker.js';

/** A read for another account that this deployment cannot make (it is no fleet hub). */
export class MemberReadError extends Error {
  override readonly name = 'MemberReadError';
}

/** The fleet a hub function reads for, from its environment (FLEET_NAME, FLEET_HUB_ACCOUNT), or none. */
/** The variables a hub function reads its fleet from (its handler environment, parsed at start-up). */
export interface FleetVariables {
  readonly AWS_REGION: string;
  readonly FLEET_NAME?: string;
  readonly FLEET_HUB_ACCOUNT?: string;
}

export function fleetFromEnv(env: FleetVariables): { name: string; hubAccount: string; partition: string } | undefined {
  const region = env.AWS_REGION;
  const partition = region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  return env.FLEET_NAME && env.FLEET_HUB_ACCOUNT
    ? { name: env.FLEET_NAME, hubAccount: env.FLEET_HUB_ACCOUNT, partition }
    : undefined;
}

/** Where a read is for: the incident's account (empty or absent: this one), its Region, the incident. */
export interface ReadSite {
  readonly account?: string;
  readonly region: string;
  readonly incidentId?: string;
}

/**
 * The clients a reader (a check group, the node resolution) uses for `site`: its own role's in this
 * account; in a fleet member's, the member's read role through the credential broker, the session
 * named for the incident and the reader (`<incident>.<purpose>`).
 */
export function memberReads<C>(
  own: C,
  o: {
    readonly fleet?: { readonly name: string; readonly hubAccount: string; readonly partition: string };
    readonly assume: AssumeRole;
    readonly purpose: string;
    readonly make: (where: Reach, credentials: AwsCredentialIdentityProvider) => C;
    readonly now?: () => number;
  },
): (site: ReadSite) => Promise<C> {
  const fleet = o.fleet;
  // Not a hub: an incident of another account is not this deployment's to read.
  if (!fleet)
    return async (site) => {
      if (site.account) throw new MemberReadError(`account ${site.account}: this deployment is no fleet hub`);
      return own;
    };
  const broker = new SpokeBroker(
    { fleet: fleet.name, partition: fleet.partition, assume: o.assume, now: o.now ?? Date.now },
    o.make,
  );
  return async (site) =>
    site.account && isMemberReach({ account: site.account }, fleet.hubAccount)
      ? broker.clients(
          { account: site.account, region: site.region },
          { role: 'read', name: spokeSessionName(site.incidentId ?? 'pod-doctor', o.purpose) },
        )
      : own;
}
