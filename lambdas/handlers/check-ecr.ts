import { ECRClient } from '@aws-sdk/client-ecr';
import { changeIndexFromEnv } from '../aws/checks/change-index-client.js';
import { runEcrGroup } from '../aws/checks/ecr-group.js';
import { checkHandler, perRegion, sdkClient } from '../aws/checks/handler-kit.js';

/** Account checks, group "ecr": ECR in the image's region, and the change index (lifecycle deletions). */
export const handler = checkHandler('ecr', runEcrGroup, {
  ecr: perRegion((region) => sdkClient(ECRClient, region)),
  changes: changeIndexFromEnv(),
});
