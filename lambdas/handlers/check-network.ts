import { createCheckHandler, type GroupClients } from '../aws/checks/handler-kit.js';
import { runNetworkGroup } from '../aws/checks/network-group.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import { readEnvironment } from '../aws/runtime/environment.js';
import { fleetFromEnv, memberReads } from '../aws/runtime/member-reads.js';
import { sdkAssume } from '../aws/runtime/sdk-assume.js';

const env = readEnvironment('check-network');

/** Account checks, group "network": EC2 only (endpoints, security groups, route tables, subnet usage). */
export const createHandler = (deps: GroupClients<'ec2'>, now?: () => Date) =>
  createCheckHandler('network', runNetworkGroup, deps, now);

const own = { ec2: new Ec2QueryClient() };
// A fleet member's incident: the member's EC2, through its read role.
export const handler = createHandler(
  memberReads(own, {
    fleet: fleetFromEnv(env),
    assume: sdkAssume(env.AWS_REGION),
    purpose: 'check-network',
    make: ({ region }, credentials) => ({ ec2: new Ec2QueryClient({ region, credentials }) }),
  }),
);
