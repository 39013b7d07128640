import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IChainable, Pass } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ActStatesProps } from './act-states.js';
import { approvalStates } from './approval-states.js';

/**
 * Props of a follow-up action after a node repair (the drain after a failed runtime restart, the
 * eviction after a verified pause repair): the Act phase's, with the Kubernetes function required.
 */
export type FollowUpStatesProps = Pick<
  ActStatesProps,
  | 'actGate'
  | 'requestApproval'
  | 'approvalTimeout'
  | 'probePolls'
  | 'command'
  | 'summarize'
  | 'recordFailure'
  | 'onError'
> & {
  /** The Kubernetes function that carries the action out through the cluster's API. */
  readonly kubernetes: IFunction;
};

/** How one follow-up action names its approval states and where it keeps their results. */
export interface FollowUpApprovalOptions {
  /** The action's verb in the recheck's state name: `Evict` → "Evict recheck". */
  readonly verb: string;
  /** The action's noun in the request's and approval's state names: `eviction` → "Eviction request", "Request eviction approval". */
  readonly noun: string;
  /** The planned action (e.g. `$.plan.drain`). */
  readonly planPath: string;
  /** The States.Array expression of the reasons the request gives. */
  readonly reasons: string;
  /** Where the request, the answer and the node probe taken after it go (e.g. `$.drain`). */
  readonly resultPrefix: string;
  /** The gate the probe leads to (also when SSM does not manage the node: the gate decides). */
  readonly gate: IChainable;
}

/** "<Noun> request" → the approval → "<Verb> recheck" (the node probed again) → the gate. */
export function followUpApproval(scope: Construct, p: FollowUpStatesProps, o: FollowUpApprovalOptions): IChainable {
  const recheck = p
    .command(`${o.verb} recheck`, {
      documentPath: '$.open.commands.probeNode',
      parametersPath: '$.open.commands.probeParameters',
      resultPath: `${o.resultPrefix}Recheck`,
      notManaged: new Pass(scope, `${o.verb} recheck: node not managed`).next(o.gate),
      onError: p.recordFailure,
      maxPolls: p.probePolls,
    })
    .next(o.gate);
  const capital = o.noun.charAt(0).toUpperCase() + o.noun.slice(1);
  const request = new Pass(scope, `${capital} request`, {
    parameters: { 'nodeAction.$': o.planPath, 'findings.$': '$.plan.findings', 'reasons.$': o.reasons },
    resultPath: `${o.resultPrefix}Request`,
  });
  return request.next(
    approvalStates(scope, {
      ...p,
      names: {
        request: `Request ${o.noun} approval`,
        expired: `${capital} approval expired`,
        approved: `${capital} approved?`,
      },
      extraPayload: { 'plan.$': `${o.resultPrefix}Request` },
      resultPath: `${o.resultPrefix}Approval`,
      onApproved: recheck,
    }),
  );
}
