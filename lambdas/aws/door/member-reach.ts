import type { ActionRequest } from '../../core/door/action-request.js';
import { doorSourceIdentity, isMemberReach, spokeSessionName } from '../../core/fleet/fleet-reach.js';
import { SpokeUnreachableError } from '../runtime/credential-broker.js';
import type { DoorDeps } from './executor.js';

/**
 * Where a request acts decides the door's clients: this account's own role, or a fleet member's
 * spoke role, assumed for this incident and action (the session name says both; the source
 * identity marks the door, which the spoke's write grants require). In a member account the door
 * sends the member's own documents, reads its EC2, IAM and EKS, and writes to its clusters; the
 * kill switch, the ledger, reservations and evidence stay the hub's. Account remedies need the
 * member's remediation scope, which the hub does not hold: refused there, never acted on blind.
 */
export async function depsFor(
  request: ActionRequest,
  deps: DoorDeps,
): Promise<{ readonly deps: DoorDeps } | { readonly refusal: string }> {
  const { scope } = request;
  if (!scope.account) return { deps };
  if (!deps.fleet)
    return {
      refusal: `account ${scope.account}: this deployment is no fleet hub, it acts in its own account only: nothing done`,
    };
  if (!isMemberReach(scope, deps.fleet.hubAccount)) return { deps };
  const where = { account: scope.account, region: scope.region };
  try {
    const member = await deps.fleet.reach(where, {
      role: 'door',
      name: spokeSessionName(request.incident.id, request.action.kind),
      sourceIdentity: doorSourceIdentity(request.incident.id),
    });
    const { documents, ...clients } = member;
    return {
      deps: {
        ...deps,
        ...clients,
        hubSsm: deps.ssm,
        config: { ...deps.config, documents },
        accountRemedies: undefined,
      },
    };
  } catch (e) {
    if (e instanceof SpokeUnreachableError) return { refusal: `${e.message}: nothing done` };
    throw e;
  }
}
