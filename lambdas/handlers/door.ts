import { ECRClient } from '@aws-sdk/client-ecr';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { perRegion, sdkClient } from '../aws/checks/handler-kit.js';
import type { DoorDeps } from '../aws/door/executor.js';
import { doorInputSchema, doorStep } from '../aws/door/service.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import { ClusterApi } from '../aws/kubernetes/cluster-api.js';
import { endpointCache } from '../aws/kubernetes/endpoint.js';
import { EksTokenCache } from '../aws/kubernetes/token.js';
import { documentClient, logger, withPowertools, workflowConfig } from '../aws/workflow/runtime.js';

/**
 * The door: one step of the door's states (gate and act, ask, probe, or poll) for the request the
 * workflow calls it with. The only function with mutating clients: SendCommand, the account
 * remedies' writes, and the Kubernetes writes through its own access entry.
 */
export const createHandler = (deps: () => Promise<DoorDeps>) =>
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
const aws = {
  iam: sdkClient(IAMClient),
  eks,
  ec2: new Ec2QueryClient(),
  ecr: perRegion((region) => sdkClient(ECRClient, region)),
};
const endpoint = endpointCache(eks, process.env.AWS_REGION ?? 'us-east-1');
// The function role's credentials, as the SDK client resolved them, sign the EKS token.
const tokens = new EksTokenCache(() => eks.config.credentials());

export const handler = createHandler(async () => ({
  ddb: documentClient(),
  ssm,
  s3,
  aws,
  cluster: async (name: string) => new ClusterApi(await endpoint(name), tokens),
  config: await workflowConfig(),
  now: Date.now,
}));
