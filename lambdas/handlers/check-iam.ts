import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import type { CheckClients } from '../aws/checks/check-input.js';
import { createCheckHandler, sdkClient } from '../aws/checks/handler-kit.js';
import { runIamGroup } from '../aws/checks/iam-group.js';

/** Account checks, group "iam": IAM (role policies) and EKS (the role aws-node uses). */
export const createHandler = (deps: Pick<CheckClients, 'iam' | 'eks'>, now?: () => Date) =>
  createCheckHandler('iam', runIamGroup, deps, now);

export const handler = createHandler({ iam: sdkClient(IAMClient), eks: sdkClient(EKSClient) });
