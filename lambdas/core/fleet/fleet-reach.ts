// How the hub reaches a member account × Region: the names both sides agree on (lib/ builds the
// spoke's role, documents and trust from them; lambdas/ assumes and sends by them). Pure.

/** The node commands (the keys of `config.documents`). */
export type NodeCommandName = 'probeNode' | 'repairPauseImage' | 'collectLogs' | 'restartRuntime';

/** Where an action or a read happens: a member account and Region. */
export interface Reach {
  readonly account: string;
  readonly region: string;
}

/**
 * The IAM path of the hub's door role: under the fleet's path (so the spoke role's trust admits it)
 * and its own, so the spoke role can tell the door from the checks (`sts:SetSourceIdentity` is
 * trusted for this path only).
 */
export const doorRolePath = (fleet: string): string => `/pod-doctor/${fleet}/door/`;

/**
 * The spoke's door role, one per account and Region: the only role there that may change anything
 * (Run Command on pod-doctor's documents, on the cluster's tagged nodes), trusted by the hub's door
 * role alone. The checks' reads go through the spoke role (`spokeRoleName`), which writes nothing.
 */
export const spokeDoorRoleName = (fleet: string, region: string): string => `pod-doctor-${fleet}-door-${region}`;

/** The ARN of the door role the hub's door assumes for `account` in `region`. */
export const spokeDoorRoleArn = (partition: string, fleet: string, account: string, region: string): string =>
  `arn:${partition}:iam::${account}:role/${spokeDoorRoleName(fleet, region)}`;

/** Every source identity the door sets begins so; the spoke role's write grants require it. */
export const DOOR_SOURCE_IDENTITY_PREFIX = 'pod-doctor-door-';

/** The characters STS takes in a RoleSessionName and a SourceIdentity (`[\w+=,.@-]*`). */
const stsText = (s: string) => s.replace(/[^\w+=,.@-]/g, '-');

/**
 * The RoleSessionName of one action in a member account: the incident and the action kind, so the
 * member's CloudTrail names both (`assumed-role/<spoke role>/<incident>.<kind>`). 2–64 characters.
 */
export function spokeSessionName(incidentId: string, what: string): string {
  return stsText(`${incidentId}.${what}`).slice(0, 64).padEnd(2, '-');
}

/**
 * The SourceIdentity the door sets when it assumes a spoke role: it stays on the session (and any it
 * chains to) and every call it makes carries it as `aws:SourceIdentity`. The spoke's write grants
 * require the door's prefix, and only the door's role may set it (the spoke role's trust policy).
 */
export function doorSourceIdentity(incidentId: string): string {
  return stsText(`${DOOR_SOURCE_IDENTITY_PREFIX}${incidentId}`).slice(0, 64);
}

/**
 * The name of one of pod-doctor's SSM documents in a member account: fixed (the hub sends by name)
 * and carrying the fleet's name, so two fleets in one account never share one.
 */
export const spokeDocumentName = (fleet: string, command: NodeCommandName): string => `pod-doctor-${fleet}-${command}`;

/** The four node commands' document names in a member account (what `config.documents` is there). */
export function spokeDocuments(fleet: string): Record<NodeCommandName, string> {
  return {
    probeNode: spokeDocumentName(fleet, 'probeNode'),
    repairPauseImage: spokeDocumentName(fleet, 'repairPauseImage'),
    collectLogs: spokeDocumentName(fleet, 'collectLogs'),
    restartRuntime: spokeDocumentName(fleet, 'restartRuntime'),
  };
}

/** The action is for a member account: the hub's own account (or none named) acts with its own role. */
export function isMemberReach(scope: { readonly account?: string | null }, hubAccount: string): boolean {
  return !!scope.account && scope.account !== hubAccount;
}
