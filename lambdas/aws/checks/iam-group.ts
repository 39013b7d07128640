import { runCheck } from '../../core/contract/findings.js';
import { type GroupRunner, inputImage, requireNode } from '../readers/account/check-input.js';
import { checkCniPolicy, checkNodeRoleEcrRead } from '../readers/account/iam-checks.js';

/** Group "iam": the node role may pull from ECR; the role aws-node uses has the CNI permissions. */
export const runIamGroup: GroupRunner<'iam' | 'eks'> = async (input, clients) => {
  const node = requireNode('iam', input);
  const { ecrImage } = inputImage(input);
  return [
    ...(await runCheck('iam.node-role.ecr-read', () =>
      checkNodeRoleEcrRead(clients.iam, node, ecrImage?.repositoryArn),
    )),
    ...(await runCheck('iam.cni-policy', () => checkCniPolicy(clients.iam, clients.eks, input.cluster, node))),
  ];
};
