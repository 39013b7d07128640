import { runCheck } from '../../core/contract/findings.js';
import { type GroupRunner, inputImage, nodeOrUnknown } from '../readers/account/check-input.js';
import { checkRecentChanges } from './change-checks.js';

/** Group "changes": breaking changes to the node's role, security groups, repository, cluster, subnet. */
export const runChangesGroup: GroupRunner<'changes'> = (input, clients, now) => {
  const node = nodeOrUnknown(input);
  const resources = [
    node.roleName ?? '',
    ...node.securityGroupIds,
    inputImage(input).ecrImage?.repository ?? '',
    input.cluster,
    node.subnetId ?? '',
  ];
  return runCheck('change.recent', () =>
    checkRecentChanges(clients.changes, { resources, lookbackHours: input.lookbackHours }, now),
  );
};
