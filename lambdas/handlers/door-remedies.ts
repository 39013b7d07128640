import { ECRClient } from '@aws-sdk/client-ecr';
import { accountRemedies } from '../aws/door/account-remedies.js';
import { createDoorHandler, doorClients, doorDeps } from '../aws/door/door-runtime.js';
import { perRegion, sdkClient } from '../aws/runtime/sdk-client.js';

/**
 * The door with the account remedies (IAM policy attach, security group rule, CIDR reservation,
 * pull-through cache rule, VPC CNI add-on settings): deployed where a cluster has a remediation scope,
 * with the grants those writes need. Without a scope the stack deploys door, which bundles none of them.
 */
const ecr = perRegion((region) => sdkClient(ECRClient, region));

export const handler = createDoorHandler(async () => ({
  ...(await doorDeps()),
  accountRemedies: accountRemedies({ ...doorClients, ecr }),
}));
