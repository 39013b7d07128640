import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { Ec2QueryClient } from '../ec2/client.js';
import { ClusterApi } from '../readers/kubernetes/cluster-api.js';
import { endpointCache } from '../readers/kubernetes/endpoint.js';
import { EksTokenCache } from '../readers/kubernetes/token.js';
import { readEnvironment } from '../runtime/environment.js';
import { sdkClient } from '../runtime/sdk-client.js';
import { documentClient, logger, withPowertools, workflowConfig } from '../runtime/workflow-runtime.js';
import { doorInputSchema } from './door-input.js';
import type { DoorClients, DoorDeps } from './executor.js';
import { doorFleetFromEnv } from './member-clients.js';
import { doorStep } from './service.js';

/**
 * What both door handlers share (door, and door-remedies with the account remedies): the step as a
 * Lambda handler, and the clients of the function's role. Each handler is its own composition root.
 */

/** One step of the door's states (gate and act, ask, probe, or poll) for the request it is called with. */
export const createDoorHandler = (deps: () => Promise<DoorDeps>) =>
  withPowertools(doorInputSchema, async (input) => {
    const door = await doorStep(input, await deps());
    logger.info('door', {
      slot: input.door.call.slot,
      kind: input.door.call.request.action.kind,
      step: door.run?.step,
      outcome: door.run?.step === 'done' ? door.last?.outcome : undefined,
    });
    return door;
  });

const ssm = sdkClient(SSMClient);
const s3 = sdkClient(S3Client);
const eks = sdkClient(EKSClient);
/** The account's clients: target reads, and (with ECR) the account remedies' writes in door-remedies. */
export const doorClients: DoorClients = { iam: sdkClient(IAMClient), eks, ec2: new Ec2QueryClient() };
// door and door-remedies share one environment (lambdas/core/contract/handler-environment.ts).
const endpoint = endpointCache(eks, readEnvironment('door').AWS_REGION);
// The function role's credentials, as the SDK client resolved them, sign the EKS token.
const tokens = new EksTokenCache(() => eks.config.credentials());
// A fleet hub's door also acts in member accounts, through their spoke roles.
const fleet = doorFleetFromEnv(readEnvironment('door'));

/** The door's dependencies without account remedies. */
export const doorDeps = async (): Promise<DoorDeps> => ({
  ddb: documentClient(),
  ssm,
  s3,
  aws: doorClients,
  cluster: async (name: string) => new ClusterApi(await endpoint(name), tokens),
  config: await workflowConfig(),
  now: Date.now,
  ...(fleet ? { fleet } : {}),
});
