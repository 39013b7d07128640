import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { spokeDocuments } from '../../core/fleet/fleet-reach.js';
import { Ec2QueryClient } from '../ec2/client.js';
import { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { endpointCache } from '../readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../readers/kubernetes/token.js';
import { SpokeBroker } from '../runtime/credential-broker.js';
import { type FleetVariables, fleetFromEnv } from '../runtime/member-reads.js';
import { sdkAssume } from '../runtime/sdk-assume.js';
import { CLIENT_OPTIONS } from '../runtime/sdk-client.js';
import type { DoorFleet, MemberDoorClients } from './executor.js';

/** The door's clients in a member account and Region, acting with the spoke role's `credentials`. */
export function memberDoorClients(
  fleet: string,
  region: string,
  credentials: AwsCredentialIdentityProvider,
): MemberDoorClients {
  const options = { ...CLIENT_OPTIONS, region, credentials };
  const eks = new EKSClient(options);
  const endpoint = endpointCache(eks, region);
  const tokens = new EksTokenCache(credentials);
  return {
    ssm: new SSMClient(options),
    aws: { iam: new IAMClient(options), eks, ec2: new Ec2QueryClient({ region, credentials }) },
    cluster: async (name) => new ClusterApi(await endpoint(name), tokens),
    documents: spokeDocuments(fleet),
  };
}

/** The live door of a fleet hub (FLEET_NAME, FLEET_HUB_ACCOUNT set on the function), or none. */
export function doorFleetFromEnv(env: FleetVariables): DoorFleet | undefined {
  const fleet = fleetFromEnv(env);
  if (!fleet) return undefined;
  const assume = sdkAssume(env.AWS_REGION);
  const broker = new SpokeBroker({ fleet: fleet.name, partition: fleet.partition, assume, now: Date.now }, (where, c) =>
    memberDoorClients(fleet.name, where.region, c),
  );
  return { hubAccount: fleet.hubAccount, reach: (where, session) => broker.clients(where, session) };
}
