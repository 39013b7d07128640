import { runCheck } from '../../core/contract/findings.js';
import { type GroupRunner, requireNode } from '../readers/account/check-input.js';
import { checkAddonVersions, checkEniCapacity, checkNodeAmi } from './eks-checks.js';

/** Group "eks": add-on versions, the node's AMI age, the ENI/IP capacity of its instance type. */
export const runEksGroup: GroupRunner<'eks' | 'ec2'> = async (input, clients, now) => {
  const node = requireNode('eks', input);
  return [
    ...(await runCheck('eks.addon-versions', () => checkAddonVersions(clients.eks, input.cluster))),
    ...(await runCheck('eks.node-ami', () => checkNodeAmi(clients.eks, input.cluster, node, now))),
    ...(await runCheck('node.eni-capacity', () => checkEniCapacity(clients.ec2, node))),
  ];
};
