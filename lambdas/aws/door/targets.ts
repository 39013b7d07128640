import type { ActionRequest } from '../../core/door/action-request.js';
import {
  type NodeContext,
  NodeNotFoundError,
  NodeNotInClusterError,
  resolveNode,
} from '../readers/account/node-context.js';
import { type DoorDeps, DoorTargetError } from './executor.js';

/**
 * The node a request acts on, as EC2 says it is now: the instance exists, its tags put it in the
 * incident's cluster, and its private DNS name is the Kubernetes node name the request uses. A name
 * from anywhere else (a pod's `spec.nodeName`, a record envelope, a session name) that EC2 does not
 * confirm is refused with DoorTargetError before anything is read or changed.
 */
export async function resolveTarget(
  request: ActionRequest,
  deps: Pick<DoorDeps, 'aws'>,
): Promise<NodeContext | undefined> {
  const a = request.action;
  const node = 'node' in a ? a.node : undefined;
  if (!node) return undefined;
  let resolved: NodeContext;
  try {
    resolved = await resolveNode(deps.aws.ec2, deps.aws.iam, node.instanceId, request.incident.cluster);
  } catch (e) {
    if (e instanceof NodeNotFoundError || e instanceof NodeNotInClusterError) throw new DoorTargetError(e.message);
    throw e;
  }
  if (node.name !== undefined && resolved.privateDnsName !== node.name)
    throw new DoorTargetError(
      `the request names node ${node.name}, but EC2 says instance ${node.instanceId} is ${resolved.privateDnsName ?? 'unnamed'}: nothing done`,
    );
  return resolved;
}
