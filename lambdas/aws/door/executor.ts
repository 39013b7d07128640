import type { S3Client } from '@aws-sdk/client-s3';
import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountTarget, ActionRequest } from '../../core/door/action-request.js';
import type { DoorResult, PendingCommand } from '../../core/door/state.js';
import type { CauseVerdict } from '../../core/policy/cause-evidence.js';
import type { ApplyPath } from '../../core/remedy/apply-path.js';
import type { WorkflowConfig } from '../../core/workflow/workflow-config.js';
import type { CheckClients } from '../readers/account/check-input.js';
import type { NodeContext } from '../readers/account/node-context.js';
import type { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import type { WaitOptions } from './kubernetes-actions.js';
import type { CooldownClaim } from './reservations.js';

/** The clients the door reads targets with (EC2, IAM instance profiles, EKS clusters and node groups). */
export type DoorClients = Pick<CheckClients, 'iam' | 'eks' | 'ec2'>;
/** The clients the account remedies act with: the door's, and ECR in each Region. */
export type RemedyClients = DoorClients & Pick<CheckClients, 'ecr'>;

/** What the door needs: the table, SSM, the evidence bucket, the account's clients, each cluster's API. */
export interface DoorDeps {
  readonly ddb: DynamoDBDocumentClient;
  /** SendCommand, GetCommandInvocation and the kill switch parameter. */
  readonly ssm: SSMClient;
  readonly s3: S3Client;
  /** Reads that corroborate a target (EC2, IAM instance profiles, EKS node groups). */
  readonly aws: DoorClients;
  /**
   * The account remedies (their write ports), where a cluster has a remediation scope: the door
   * built without them (no scope, no grants) refuses an account remedy before reading anything.
   */
  readonly accountRemedies?: AccountRemedies;
  /** The Kubernetes API of a configured cluster, as the door's access entry reaches it. */
  readonly cluster: (name: string) => Promise<ClusterApi>;
  readonly config: WorkflowConfig;
  readonly now: () => number;
  /** How the aws-node restart and the drain wait for the pods. @default 120 s, read every 2 s */
  readonly wait?: WaitOptions;
}

/** One request as the door handles it: the request, the node it resolved from EC2, the clock. */
export interface DoorContext {
  readonly request: ActionRequest;
  /** The node, as the door resolved it from EC2 (kinds that act on a node). */
  readonly node?: NodeContext;
  readonly deps: DoorDeps;
  readonly now: number;
  /** Poll budgets of node commands (from the state machine's poll interval). */
  readonly polls: { readonly probe: number; readonly action: number };
}

/** What an action did: a command to poll, or its result (and whether it changed anything). */
export type ActOutcome =
  | { readonly pending: Omit<PendingCommand, 'reservation'> }
  | {
      readonly result: Pick<DoorResult, 'command' | 'record' | 'drain' | 'evictions'> & {
        readonly outcome: 'done' | 'failed' | 'dry-run';
        readonly reason: string;
      };
      /** Something changed: what was reserved stays spent. */
      readonly changed: boolean;
    };

/** The rollback of a change that failed its verification may run (undefined) or not (why). */
export type RollbackGate = () => Promise<string | undefined>;

/**
 * One kind's part of the door: what it would change (the diff the approval covers), the cause on its
 * target's own evidence, the cooldowns it claims, and the change itself (or its dry run).
 */
export interface Prepared {
  /** The change as lines (remedies: before/after); empty for actions whose target alone says it all. */
  readonly diff: readonly string[];
  /** The cause, on evidence taken at or after `since` (node probes; the others are read now). */
  cause(since: number): Promise<CauseVerdict>;
  readonly cooldowns: readonly CooldownClaim[];
  /** What the result of a refusal carries (a remedy's not-needed record). */
  readonly refused?: Pick<DoorResult, 'record'>;
  dryRun(): Promise<ActOutcome>;
  act(rollback: RollbackGate): Promise<ActOutcome>;
  /**
   * `act` throws only when nothing took effect (a node command: SendCommand refused it), so a retry
   * may gate it again. Without it a throw after the change began is recorded as such, never re-run.
   * @default false
   */
  readonly throwsOnlyUnchanged?: boolean;
}

/** The request could not be prepared (the current state unreadable): its failed result. */
export interface PrepareFailure {
  readonly failed: Pick<DoorResult, 'record'> & { readonly reason: string };
}

/** The target is not what the request claims, or not the cluster's own: nothing is read or changed. */
export class DoorTargetError extends Error {
  override readonly name = 'DoorTargetError';
}

/** An account remedy's target, checked and bound to its apply path (ports that may write). */
export interface AccountRemedies {
  path(
    target: AccountTarget,
    o: {
      readonly cluster: string;
      readonly region: string;
      readonly node?: NodeContext;
      readonly config: WorkflowConfig;
    },
  ): Promise<ApplyPath<unknown>>;
}

/** The target is outside the cluster's configuration, or not the cluster's own: nothing is read or changed. */
export class RemedyTargetError extends Error {
  override readonly name = 'RemedyTargetError';
}

/** The role the re-run check names is not the target's: the target is not what the check is about. */
export class RecheckTargetError extends Error {
  override readonly name = 'RecheckTargetError';
}
