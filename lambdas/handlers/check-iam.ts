import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { createCheckHandler, type GroupClients } from '../aws/checks/handler-kit.js';
import { runIamGroup } from '../aws/checks/iam-group.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { fleetFromEnv, memberReads } from '../aws/runtime/member-reads.js';
import { sdkAssume } from '../aws/runtime/sdk-assume.js';
import { CLIENT_OPTIONS, sdkClient } from '../aws/runtime/sdk-client.js';

const env = readEnvironment('check-iam');

/** Account checks, group "iam": IAM (role policies) and EKS (the role aws-node uses). */
export const createHandler = (deps: GroupClients<'iam' | 'eks'>, now?: () => Date) =>
  createCheckHandler('iam', runIamGroup, deps, now);

const own = { iam: sdkClient(IAMClient), eks: sdkClient(EKSClient) };
// A fleet member's incident: the member's IAM and EKS, through its read role.
export const handler = createHandler(
  memberReads(own, {
    fleet: fleetFromEnv(env),
    assume: sdkAssume(env.AWS_REGION),
    purpose: 'check-iam',
    make: ({ region }, credentials) => ({
      iam: new IAMClient({ ...CLIENT_OPTIONS, region, credentials }),
      eks: new EKSClient({ ...CLIENT_OPTIONS, region, credentials }),
    }),
  }),
);
