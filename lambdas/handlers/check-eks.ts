import { EKSClient } from '@aws-sdk/client-eks';
import { runEksGroup } from '../aws/checks/eks-group.js';
import { createCheckHandler, type GroupClients } from '../aws/checks/handler-kit.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { fleetFromEnv, memberReads } from '../aws/runtime/member-reads.js';
import { sdkAssume } from '../aws/runtime/sdk-assume.js';
import { CLIENT_OPTIONS, sdkClient } from '../aws/runtime/sdk-client.js';

const env = readEnvironment('check-eks');

/** Account checks, group "eks": EKS (add-ons, node group AMI) and EC2 (instance type ENI limits). */
export const createHandler = (deps: GroupClients<'eks' | 'ec2'>, now?: () => Date) =>
  createCheckHandler('eks', runEksGroup, deps, now);

const own = { eks: sdkClient(EKSClient), ec2: new Ec2QueryClient() };
// A fleet member's incident: the member's EKS and EC2, through its read role.
export const handler = createHandler(
  memberReads(own, {
    fleet: fleetFromEnv(env),
    assume: sdkAssume(env.AWS_REGION),
    purpose: 'check-eks',
    make: ({ region }, credentials) => ({
      eks: new EKSClient({ ...CLIENT_OPTIONS, region, credentials }),
      ec2: new Ec2QueryClient({ region, credentials }),
    }),
  }),
);
