import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { createCheckHandler } from '../aws/checks/handler-kit.js';
import { runIamGroup } from '../aws/checks/iam-group.js';
import type { CheckClients } from '../aws/readers/account/check-input.js';
import { sdkClient } from '../aws/runtime/sdk-client.js';

/** Account checks, group "iam": IAM (role policies) and EKS (the role aws-node uses). */
export const createHandler = (deps: Pick<CheckClients, 'iam' | 'eks'>, now?: () => Date) =>
  createCheckHandler('iam', runIamGroup, deps, now);

export const handler = createHandler({ iam: sdkClient(IAMClient), eks: sdkClient(EKSClient) });
