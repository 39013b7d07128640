import { rmSync, writeFileSync } from 'node:fs';
import type { AccountSnapshot } from './account-snapshot.js';
import type { LocalNodeBehaviour } from './local-workflow.js';
import { simulate } from './mock-account-writes.js';

/**
 * A node whose ECR credentials follow the recorded account: before every command, the token file the
 * node's ECR_PASSWORD_CMD reads exists only while IAM (as the recorded account evaluates it) lets the
 * node role call ecr:GetAuthorizationToken. An account remedy that re-attaches the policy is what
 * makes the node's next ECR pull succeed — nothing else.
 */
export function ecrTokenFollowsAccount(
  node: LocalNodeBehaviour,
  o: { account: AccountSnapshot; roleName: string; tokenFile: string; token: string },
): LocalNodeBehaviour {
  return {
    managed: node.managed,
    run(document, parameters, n) {
      if (simulate(o.account, o.roleName, 'ecr:GetAuthorizationToken') === 'allowed')
        writeFileSync(o.tokenFile, o.token, { mode: 0o600 });
      else rmSync(o.tokenFile, { force: true });
      return node.run(document, parameters, n);
    },
  };
}
