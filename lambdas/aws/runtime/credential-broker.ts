import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { spokeRoleArn } from '../../core/fleet/fleet.js';
import { type Reach, spokeDoorRoleArn } from '../../core/fleet/fleet-reach.js';

/**
 * The fleet's one credential broker: account + Region → clients acting as that member's spoke role.
 * The door (Run Command, Kubernetes actions), the checks, verification and the Kubernetes reads all
 * come through here: one place assumes, with the fleet's external id and a session name that says
 * which incident and what for. No member credential is stored anywhere; STS hands out sessions of
 * at most an hour, reused while they last.
 */

/** What STS AssumeRole is asked (the SDK's AssumeRoleCommandInput, the fields the broker sets). */
export interface AssumeParams {
  readonly RoleArn: string;
  readonly RoleSessionName: string;
  readonly ExternalId: string;
  /** Set by the door only (the spoke's write grants require it); absent for reads. */
  readonly SourceIdentity?: string;
  readonly DurationSeconds: number;
}

/** STS from the hub: a provider of the credentials `params` ask for (live: the SDK's fromTemporaryCredentials). */
export type AssumeRole = (params: AssumeParams) => AwsCredentialIdentityProvider;

/**
 * One session: which of the member's roles (`read`: the spoke role the checks, verification and the
 * Kubernetes reads use; `door`: the door role, the door's only), its name (incident and purpose) and,
 * for the door, the source identity it carries.
 */
export interface SessionSpec {
  readonly role: 'read' | 'door';
  readonly name: string;
  readonly sourceIdentity?: string;
}

export interface BrokerOptions {
  /** The fleet's name: the spoke role's name and the external id its trust policy requires. */
  readonly fleet: string;
  /** `aws`, `aws-cn`, `aws-us-gov`. */
  readonly partition: string;
  readonly assume: AssumeRole;
  readonly now: () => number;
}

/** The member's role could not be assumed (trust refused, role gone, Region unreachable): nothing was done there. */
export class SpokeUnreachableError extends Error {
  override readonly name = 'SpokeUnreachableError';
  constructor(
    readonly where: Reach,
    override readonly cause: unknown,
  ) {
    const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`could not assume pod-doctor's role in account ${where.account} in ${where.region}: ${why}`.slice(0, 1_000));
  }
}

/** Session length asked of STS (role chaining caps it at one hour). */
export const SESSION_SECONDS = 3_600;
/** A session is renewed this long before it expires. */
const RENEW_MS = 5 * 60_000;

/**
 * Credentials of `where`'s spoke role, assumed once now (so a refusal is known before anything is
 * attempted) and renewed before they expire. `make` builds the clients from them.
 */
export class SpokeBroker<C> {
  private readonly sessions = new Map<string, { clients: C; expires: number }>();

  constructor(
    private readonly o: BrokerOptions,
    private readonly make: (where: Reach, credentials: AwsCredentialIdentityProvider) => C,
  ) {}

  /** The ARN of the member's `role` in `where`. */
  roleArn(where: Reach, role: SessionSpec['role']): string {
    return (role === 'door' ? spokeDoorRoleArn : spokeRoleArn)(
      this.o.partition,
      this.o.fleet,
      where.account,
      where.region,
    );
  }

  /** Clients acting as `where`'s spoke role in session `session`. @throws SpokeUnreachableError */
  async clients(where: Reach, session: SessionSpec): Promise<C> {
    const key = `${session.role}|${where.account}|${where.region}|${session.name}|${session.sourceIdentity ?? ''}`;
    const hit = this.sessions.get(key);
    if (hit && hit.expires - RENEW_MS > this.o.now()) return hit.clients;
    const provider = this.o.assume({
      RoleArn: this.roleArn(where, session.role),
      RoleSessionName: session.name,
      ExternalId: this.o.fleet,
      ...(session.sourceIdentity ? { SourceIdentity: session.sourceIdentity } : {}),
      DurationSeconds: SESSION_SECONDS,
    });
    let first: AwsCredentialIdentity;
    try {
      first = await provider();
    } catch (e) {
      throw new SpokeUnreachableError(where, e);
    }
    const expires = first.expiration?.getTime() ?? this.o.now() + SESSION_SECONDS * 1000;
    let current: Promise<AwsCredentialIdentity> = Promise.resolve(first);
    // Reuse the session while it lasts; ask STS again only when it nears its end.
    const credentials: AwsCredentialIdentityProvider = async () => {
      const c = await current;
      if ((c.expiration?.getTime() ?? Number.POSITIVE_INFINITY) - RENEW_MS > this.o.now()) return c;
      current = provider();
      return current;
    };
    const clients = this.make(where, credentials);
    this.sessions.set(key, { clients, expires });
    return clients;
  }
}
