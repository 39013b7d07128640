import { EKSClient } from '@aws-sdk/client-eks';
import { runEksGroup } from '../aws/checks/eks-group.js';
import { createCheckHandler } from '../aws/checks/handler-kit.js';
import { Ec2QueryClient } from '../aws/ec2/client.js';
import type { CheckClients } from '../aws/readers/account/check-input.js';
import { sdkClient } from '../aws/runtime/sdk-client.js';

/** Account checks, group "eks": EKS (add-ons, node group AMI) and EC2 (instance type ENI limits). */
export const createHandler = (deps: Pick<CheckClients, 'eks' | 'ec2'>, now?: () => Date) =>
  createCheckHandler('eks', runEksGroup, deps, now);

export const handler = createHandler({ eks: sdkClient(EKSClient), ec2: new Ec2QueryClient() });
