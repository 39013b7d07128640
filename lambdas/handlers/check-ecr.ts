import { ECRClient } from '@aws-sdk/client-ecr';
import { changeIndexIn } from '../aws/checks/change-index-client.js';
import { runEcrGroup } from '../aws/checks/ecr-group.js';
import { createCheckHandler, type GroupClients } from '../aws/checks/handler-kit.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { fleetFromEnv, memberReads } from '../aws/runtime/member-reads.js';
import { sdkAssume } from '../aws/runtime/sdk-assume.js';
import { CLIENT_OPTIONS, perRegion, sdkClient } from '../aws/runtime/sdk-client.js';

const env = readEnvironment('check-ecr');

/** Account checks, group "ecr": ECR in the image's region, and the change index (lifecycle deletions). */
export const createHandler = (deps: GroupClients<'ecr' | 'changes'>, now?: () => Date) =>
  createCheckHandler('ecr', runEcrGroup, deps, now);

const own = {
  ecr: perRegion((region) => sdkClient(ECRClient, region)),
  changes: changeIndexIn(env.CHANGE_TABLE_NAME),
};
// A fleet member's incident: the member's ECR, through its read role (the change index is the hub's).
export const handler = createHandler(
  memberReads(own, {
    fleet: fleetFromEnv(env),
    assume: sdkAssume(env.AWS_REGION),
    purpose: 'check-ecr',
    make: (_where, credentials) => ({
      ecr: perRegion((r) => new ECRClient({ ...CLIENT_OPTIONS, region: r, credentials })),
      changes: own.changes,
    }),
  }),
);
