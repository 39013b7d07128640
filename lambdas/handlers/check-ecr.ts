import { ECRClient } from '@aws-sdk/client-ecr';
import { changeIndexIn } from '../aws/checks/change-index-client.js';
import { runEcrGroup } from '../aws/checks/ecr-group.js';
import { createCheckHandler } from '../aws/checks/handler-kit.js';
import type { CheckClients } from '../aws/readers/account/check-input.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { perRegion, sdkClient } from '../aws/runtime/sdk-client.js';

/** Account checks, group "ecr": ECR in the image's region, and the change index (lifecycle deletions). */
export const createHandler = (deps: Pick<CheckClients, 'ecr' | 'changes'>, now?: () => Date) =>
  createCheckHandler('ecr', runEcrGroup, deps, now);

export const handler = createHandler({
  ecr: perRegion((region) => sdkClient(ECRClient, region)),
  changes: changeIndexIn(readEnvironment('check-ecr').CHANGE_TABLE_NAME),
});
