import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { SSMClient } from '@aws-sdk/client-ssm';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { spokeDocuments } from '../../core/fleet/fleet-reach.js';
import { Ec2QueryClient } from '../ec2/client.js';
import { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { endpointCache } from '../readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../readers/kubernetes/token.js';
import { type AssumeRole, SpokeBroker } from '../runtime/credential-broker.js';
import { CLIENT_OPTIONS } from '../runtime/sdk-client.js';
import type { DoorFleet, MemberDoorClients } from './executor.js';

/** STS through the SDK (the hub's regional endpoint), chained from the function's own role. */
export const sdkAssume =
  (hubRegion: string): AssumeRole =>
  (params) =>
    fromTemporaryCredentials({ params: { ...params }, clientConfig: { region: hubRegion } });

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
export function doorFleetFromEnv(env: NodeJS.ProcessEnv): DoorFleet | undefined {
  const fleet = env.FLEET_NAME;
  const hubAccount = env.FLEET_HUB_ACCOUNT;
  if (!fleet || !hubAccount) return undefined;
  const region = env.AWS_REGION ?? 'us-east-1';
  const partition = region.startsWith('cn-') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
  const broker = new SpokeBroker({ fleet, partition, assume: sdkAssume(region), now: Date.now }, (where, c) =>
    memberDoorClients(fleet, where.region, c),
  );
  return { hubAccount, reach: (where, session) => broker.clients(where, session) };
}
