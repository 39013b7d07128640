import { afterEach, describe, expect, it } from 'vitest';
import type { DoorDeps } from '../../lambdas/aws/door/executor.js';
import { DoorTargetError } from '../../lambdas/aws/door/executor.js';
import { resolveTarget } from '../../lambdas/aws/door/targets.js';
import type { ActionRequest } from '../../lambdas/core/door/action-request.js';
import { CLUSTER, healthyAccount, NODE_DNS, NODE_ID } from '../../local/account-snapshot.js';
import { mockAccount } from '../../local/mock-account.js';

/**
 * The door re-resolves the node a request names in EC2 before anything is read or changed: a name
 * from a pod's spec.nodeName, a record envelope or a session name that EC2 does not confirm is refused.
 */
let restore = () => {};
afterEach(() => restore());

function deps(): Pick<DoorDeps, 'aws'> {
  const clients = mockAccount(healthyAccount());
  restore = clients.restore;
  return { aws: clients };
}

const request = (node: { instanceId: string; name: string }, cluster = CLUSTER): ActionRequest => ({
  slot: 'drain',
  action: { kind: 'drain-node', node },
  disposition: 'approve',
  description: 'drain the node',
  incident: { id: 'inc-1', key: `${cluster}|node:${node.instanceId}|pid-exhaustion`, class: 'pid-exhaustion', cluster },
  execution: 'arn:aws:states:eu-west-1:111122223333:execution:wf:inc-1',
  scope: { region: 'eu-west-1' },
});

describe("the door's target: EC2's word, not the request's", () => {
  it('the instance, tagged for the cluster, whose private DNS name is the node name: resolved', async () => {
    const node = await resolveTarget(request({ instanceId: NODE_ID, name: NODE_DNS }), deps());
    expect(node?.instanceId).toBe(NODE_ID);
    expect(node?.privateDnsName).toBe(NODE_DNS);
  });

  it('a node name EC2 does not give the instance (another node of the cluster) is refused', async () => {
    const other = 'ip-10-0-99-99.eu-west-1.compute.internal';
    await expect(resolveTarget(request({ instanceId: NODE_ID, name: other }), deps())).rejects.toThrow(
      new DoorTargetError(
        `the request names node ${other}, but EC2 says instance ${NODE_ID} is ${NODE_DNS}: nothing done`,
      ),
    );
  });

  it('an instance of another cluster, or one that does not exist, is refused', async () => {
    await expect(resolveTarget(request({ instanceId: NODE_ID, name: NODE_DNS }, 'prod-us'), deps())).rejects.toThrow(
      DoorTargetError,
    );
    await expect(resolveTarget(request({ instanceId: 'i-0fffffffffffffff0', name: NODE_DNS }), deps())).rejects.toThrow(
      DoorTargetError,
    );
  });
});
